package main

import (
	"fmt"
	"strings"
	"time"
)

// tzYear is the year the offsets are stated for. The zone files decide the
// offsets; the build machine's clock and time zone database are never read.
const tzYear = 2026

// timeZones turns zone.tab and the compiled zone files into "In 2026 the
// time zone Asia/Tokyo (Tokyo, Japan) is at UTC+09:00 (JST) all year."
func timeZones(pkgs map[string]*pkg) ([]fact, error) {
	p, iso, err := pkgFile(pkgs, "tzdata", "usr/share/zoneinfo/iso3166.tab")
	if err != nil {
		return nil, err
	}
	country := map[string]string{}
	for _, l := range lines(iso, "#") {
		code, name, ok := strings.Cut(l, "\t")
		if ok {
			country[code] = strings.TrimSpace(name)
		}
	}
	tab, err := p.file("usr/share/zoneinfo/zone.tab")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, l := range lines(tab, "#") {
		f := strings.Split(l, "\t")
		if len(f) < 3 {
			continue
		}
		zone := f[2]
		path := "/usr/share/zoneinfo/" + zone
		data, err := p.file(path)
		if err != nil {
			return nil, err
		}
		loc, err := time.LoadLocationFromTZData(zone, data)
		if err != nil {
			return nil, fmt.Errorf("gen: %s: %w", path, err)
		}
		city := strings.ReplaceAll(zone[strings.LastIndex(zone, "/")+1:], "_", " ")
		where := city
		if c := country[f[0]]; c != "" {
			where += ", " + c
		}
		text := fmt.Sprintf("In %d the time zone %s (%s) is at %s.", tzYear, zone, where, offsetsIn(loc, tzYear))
		out = append(out, fact{Text: text, Source: p.source(path), Topic: "timezones"})
	}
	return out, nil
}

// offsetsIn describes the UTC offsets a zone uses during year: one offset
// all year, or standard and daylight saving time.
func offsetsIn(loc *time.Location, year int) string {
	var std, dst string
	for t := time.Date(year, 1, 1, 12, 0, 0, 0, time.UTC); t.Year() == year; t = t.AddDate(0, 0, 1) {
		lt := t.In(loc)
		abbr, off := lt.Zone()
		s := utcOffset(off)
		if abbr != "" && abbr[0] != '+' && abbr[0] != '-' {
			s += " (" + abbr + ")"
		}
		if lt.IsDST() {
			if dst == "" {
				dst = s
			}
		} else if std == "" {
			std = s
		}
	}
	switch {
	case dst == "":
		return std + " all year"
	case std == "":
		return dst + " all year (permanent daylight saving time)"
	}
	return std + " in standard time and " + dst + " during daylight saving time"
}

// utcOffset writes seconds east of UTC as UTC+09:00 or UTC-03:30.
func utcOffset(sec int) string {
	sign := '+'
	if sec < 0 {
		sign, sec = '-', -sec
	}
	s := fmt.Sprintf("UTC%c%02d:%02d", sign, sec/3600, sec%3600/60)
	if sec%60 != 0 {
		s += fmt.Sprintf(":%02d", sec%60)
	}
	return s
}
