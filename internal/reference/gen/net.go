package main

import (
	"fmt"
	"strings"
)

// collect runs every source in a fixed order.
func collect(pkgs map[string]*pkg) ([]fact, error) {
	type source func(map[string]*pkg) ([]fact, error)
	var all []fact
	for _, src := range []source{
		services, protocols, mimeTypes,
		countries, languages, currencies, scripts,
		timeZones, pciVendors, usbVendors,
		errnos, signals, syscalls, unicodeBlocks, manPages,
	} {
		fs, err := src(pkgs)
		if err != nil {
			return nil, err
		}
		all = append(all, fs...)
	}
	seen := map[string]bool{}
	out := all[:0]
	for _, f := range all {
		if f.Text == "" || seen[f.Text] {
			continue
		}
		seen[f.Text] = true
		out = append(out, f)
	}
	return out, nil
}

func need(pkgs map[string]*pkg, name string) (*pkg, error) {
	p, ok := pkgs[name]
	if !ok {
		return nil, fmt.Errorf("gen: package %s is not in the lock", name)
	}
	return p, nil
}

// pkgFile reads path from the unpacked package name.
func pkgFile(pkgs map[string]*pkg, name, path string) (*pkg, []byte, error) {
	p, err := need(pkgs, name)
	if err != nil {
		return nil, nil, err
	}
	b, err := p.file(path)
	return p, b, err
}

// commented is a line of a netbase file: its fields and its # comment.
type commented struct {
	fields  []string
	comment string
}

// commentedLines splits a netbase file (services, protocols) into lines
// of fields with their trailing comment; comment-only lines are skipped.
func commentedLines(b []byte) []commented {
	var out []commented
	for _, l := range lines(b, "") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		c := commented{}
		if i := strings.Index(l, "#"); i >= 0 {
			l, c.comment = l[:i], strings.TrimSpace(l[i+1:])
		}
		c.fields = strings.Fields(l)
		out = append(out, c)
	}
	return out
}

// services turns /etc/services into one fact per service name and port:
// "Port 5432/tcp is registered to postgresql (PostgreSQL Database)."
func services(pkgs map[string]*pkg) ([]fact, error) {
	p, b, err := pkgFile(pkgs, "netbase", "etc/services")
	if err != nil {
		return nil, err
	}
	type entry struct {
		name, port, comment string
		aliases             []string
		protos              []string
	}
	var order []string
	entries := map[string]*entry{}
	for _, c := range commentedLines(b) {
		f, comment := c.fields, c.comment
		if len(f) < 2 {
			continue
		}
		port, proto, ok := strings.Cut(f[1], "/")
		if !ok {
			continue
		}
		key := f[0] + " " + port
		e := entries[key]
		if e == nil {
			e = &entry{name: f[0], port: port, aliases: f[2:]}
			entries[key] = e
			order = append(order, key)
		}
		if e.comment == "" {
			e.comment = comment
		}
		e.protos = append(e.protos, proto)
	}
	var out []fact
	for _, k := range order {
		e := entries[k]
		var ports []string
		for _, pr := range e.protos {
			ports = append(ports, e.port+"/"+pr)
		}
		text := fmt.Sprintf("Port %s %s registered to the %s service", joinAnd(ports), isAre(len(ports)), e.name)
		if e.comment != "" {
			text += " (" + e.comment + ")"
		}
		if len(e.aliases) > 0 {
			text += ", also known as " + joinAnd(e.aliases)
		}
		out = append(out, fact{Text: text + ".", Source: p.source("/etc/services"), Topic: "ports"})
	}
	return out, nil
}

// protocols turns /etc/protocols into "IP protocol number 6 is TCP
// (transmission control protocol)."
func protocols(pkgs map[string]*pkg) ([]fact, error) {
	p, b, err := pkgFile(pkgs, "netbase", "etc/protocols")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, c := range commentedLines(b) {
		f, comment := c.fields, c.comment
		if len(f) < 2 {
			continue
		}
		name := f[0]
		if len(f) > 2 {
			name = f[2]
		}
		text := fmt.Sprintf("IP protocol number %s is %s", f[1], name)
		if comment != "" {
			text += " (" + comment + ")"
		}
		out = append(out, fact{Text: text + ".", Source: p.source("/etc/protocols"), Topic: "protocols"})
	}
	return out, nil
}

// mimeTypes turns /etc/mime.types into "Files with the extension .pdf have
// the MIME type application/pdf."
func mimeTypes(pkgs map[string]*pkg) ([]fact, error) {
	p, b, err := pkgFile(pkgs, "media-types", "etc/mime.types")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, l := range lines(b, "#") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		var exts []string
		for _, e := range f[1:] {
			exts = append(exts, "."+e)
		}
		noun := "extension"
		if len(exts) > 1 {
			noun = "extensions"
		}
		text := fmt.Sprintf("Files with the %s %s have the MIME type %s.", noun, joinOr(exts), f[0])
		out = append(out, fact{Text: text, Source: p.source("/etc/mime.types"), Topic: "mime"})
	}
	return out, nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// joinAnd writes "a", "a and b", "a, b and c".
func joinAnd(xs []string) string { return joinWith(xs, " and ") }

// joinOr writes "a", "a or b", "a, b or c".
func joinOr(xs []string) string { return joinWith(xs, " or ") }

func joinWith(xs []string, last string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + last + xs[len(xs)-1]
}
