package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pciVendors: "PCI vendor ID 8086 belongs to Intel Corporation."
func pciVendors(pkgs map[string]*pkg) ([]fact, error) {
	return idVendors(pkgs, "pci.ids", "/usr/share/misc/pci.ids", "PCI", "pci")
}

// usbVendors: "USB vendor ID 046d belongs to Logitech, Inc."
func usbVendors(pkgs map[string]*pkg) ([]fact, error) {
	return idVendors(pkgs, "usb.ids", "/var/lib/usbutils/usb.ids", "USB", "usb")
}

// idVendors reads the vendor lines of a pci.ids-style file: four hex digits
// at the start of a line, two spaces, the name. Device lines follow,
// indented by one tab; the class lists at the end start with a letter and
// a space. Only vendors the file lists at least one device for become
// facts: the others (thousands of ids registered for products nobody
// describes) would crowd out the vendors people look up.
func idVendors(pkgs map[string]*pkg, name, path, bus, topic string) ([]fact, error) {
	p, b, err := pkgFile(pkgs, name, path)
	if err != nil {
		return nil, err
	}
	vendor := regexp.MustCompile(`^([0-9a-f]{4})  (.+)$`)
	device := regexp.MustCompile(`^\t[0-9a-f]{4}  `)
	var out []fact
	pending := ""
	for _, l := range lines(b, "") {
		if device.MatchString(l) && pending != "" {
			out = append(out, fact{Text: pending, Source: p.source(path), Topic: topic})
			pending = ""
			continue
		}
		m := vendor.FindStringSubmatch(l)
		if m == nil {
			if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "#") {
				pending = "" // the class lists: no vendor continues past here
			}
			continue
		}
		pending = ""
		vname := strings.Join(strings.Fields(m[2]), " ")
		if vname == "" || strings.EqualFold(vname, "Illegal Vendor ID") {
			continue
		}
		pending = fmt.Sprintf("%s vendor ID %s belongs to %s", bus, m[1], strings.TrimRight(vname, ","))
		if !strings.HasSuffix(pending, ".") {
			pending += "."
		}
	}
	return out, nil
}

var defineRE = regexp.MustCompile(`^#define\s+(\w+)\s+(\w+)\s*(?:/\*\s*(.*?)\s*\*/)?`)

// errnos: "On Linux, errno 13 is EACCES: Permission denied."
func errnos(pkgs map[string]*pkg) ([]fact, error) {
	p, err := need(pkgs, "linux-libc-dev")
	if err != nil {
		return nil, err
	}
	var out []fact
	values := map[string]string{}
	for _, path := range []string{"/usr/include/asm-generic/errno-base.h", "/usr/include/asm-generic/errno.h"} {
		b, err := p.file(path)
		if err != nil {
			return nil, err
		}
		for _, l := range lines(b, "") {
			m := defineRE.FindStringSubmatch(l)
			if m == nil || !strings.HasPrefix(m[1], "E") {
				continue
			}
			name, val, desc := m[1], m[2], m[3]
			var text string
			if _, err := strconv.Atoi(val); err == nil {
				values[name] = val
				text = fmt.Sprintf("Linux errno %s means %s (%s).", val, desc, name)
			} else if n, ok := values[val]; ok {
				text = fmt.Sprintf("Linux error %s is another name for %s (errno %s, %s).", name, val, n, desc)
			} else {
				continue
			}
			out = append(out, fact{Text: strings.ReplaceAll(text, ": .", "."), Source: p.source(path), Topic: "errno"})
		}
	}
	return out, nil
}

// signals: numbers from the x86-64 kernel header, meanings and default
// actions from signal(7): "On Linux x86-64, SIGKILL is signal 9 (Kill
// signal); by default it terminates the process."
func signals(pkgs map[string]*pkg) ([]fact, error) {
	p, err := need(pkgs, "linux-libc-dev")
	if err != nil {
		return nil, err
	}
	man, err := need(pkgs, "manpages")
	if err != nil {
		return nil, err
	}
	const hdr = "/usr/include/x86_64-linux-gnu/asm/signal.h"
	b, err := p.file(hdr)
	if err != nil {
		return nil, err
	}
	const page = "/usr/share/man/man7/signal.7.gz"
	about, err := signalTable(man, page)
	if err != nil {
		return nil, err
	}
	actions := map[string]string{
		"Term": "by default it terminates the process",
		"Core": "by default it terminates the process and dumps core",
		"Ign":  "by default it is ignored",
		"Stop": "by default it stops the process",
		"Cont": "by default it continues a stopped process",
	}
	var out []fact
	for _, l := range lines(b, "") {
		m := defineRE.FindStringSubmatch(l)
		if m == nil || !strings.HasPrefix(m[1], "SIG") || m[1] == "SIGRTMAX" {
			continue
		}
		if n, err := strconv.Atoi(m[2]); err != nil || n > 64 {
			continue // SIGSTKSZ and the like are sizes, not signals
		}
		text := fmt.Sprintf("On Linux x86-64, %s is signal number %s", m[1], m[2])
		src := p.source(hdr)
		if a, ok := about[m[1]]; ok {
			text += " (" + a.comment + ")"
			if act := actions[a.action]; act != "" {
				text += "; " + act
			}
			src += " and " + man.name + " " + man.version + ", signal(7)"
		}
		out = append(out, fact{Text: text + ".", Source: src, Topic: "signals"})
	}
	return out, nil
}

type signalInfo struct{ action, comment string }

// signalTable reads the "Signal Standard Action Comment" table of
// signal(7), joining continuation lines.
func signalTable(man *pkg, page string) (map[string]signalInfo, error) {
	b, err := man.file(page)
	if err != nil {
		return nil, err
	}
	text, err := gunzip(b)
	if err != nil {
		return nil, fmt.Errorf("gen: %s: %w", page, err)
	}
	out := map[string]signalInfo{}
	in := false
	last := ""
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "Signal\tStandard\tAction\tComment"):
			in = true
			continue
		case in && strings.HasPrefix(l, ".TE"):
			return out, nil
		case !in:
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) == 4 && strings.HasPrefix(f[0], "SIG") {
			last = f[0]
			out[last] = signalInfo{action: f[2], comment: roffText(f[3])}
		} else if len(f) == 4 && f[0] == "" && last != "" {
			s := out[last]
			s.comment += " " + roffText(f[3])
			out[last] = s
		}
	}
	return out, nil
}

// syscalls: "On Linux x86-64, the read system call is number 0."
func syscalls(pkgs map[string]*pkg) ([]fact, error) {
	const path = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
	p, b, err := pkgFile(pkgs, "linux-libc-dev", path)
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, l := range lines(b, "") {
		m := defineRE.FindStringSubmatch(l)
		if m == nil || !strings.HasPrefix(m[1], "__NR_") {
			continue
		}
		text := fmt.Sprintf("On Linux x86-64, the %s system call is number %s.", strings.TrimPrefix(m[1], "__NR_"), m[2])
		out = append(out, fact{Text: text, Source: p.source(path), Topic: "syscalls"})
	}
	return out, nil
}

// unicodeBlocks: "The Unicode block Basic Latin spans U+0000 to U+007F."
func unicodeBlocks(pkgs map[string]*pkg) ([]fact, error) {
	const path = "/usr/share/unicode/Blocks.txt"
	p, b, err := pkgFile(pkgs, "unicode-data", path)
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, l := range lines(b, "#") {
		rng, name, ok := strings.Cut(l, ";")
		lo, hi, ok2 := strings.Cut(strings.TrimSpace(rng), "..")
		if !ok || !ok2 {
			continue
		}
		text := fmt.Sprintf("The Unicode block %s spans code points U+%s to U+%s.", strings.TrimSpace(name), lo, hi)
		out = append(out, fact{Text: text, Source: p.source(path), Topic: "unicode"})
	}
	return out, nil
}
