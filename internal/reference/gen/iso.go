package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// isoEntry is the union of the fields iso-codes' JSON files use.
type isoEntry struct {
	Alpha2        string `json:"alpha_2"`
	Alpha3        string `json:"alpha_3"`
	Alpha4        string `json:"alpha_4"`
	Numeric       string `json:"numeric"`
	Name          string `json:"name"`
	OfficialName  string `json:"official_name"`
	CommonName    string `json:"common_name"`
	Bibliographic string `json:"bibliographic"`
}

// isoFile reads one iso-codes JSON file: {"<standard>": [entries]}.
func isoFile(pkgs map[string]*pkg, standard string) ([]isoEntry, string, error) {
	path := "/usr/share/iso-codes/json/iso_" + standard + ".json"
	p, b, err := pkgFile(pkgs, "iso-codes", path)
	if err != nil {
		return nil, "", err
	}
	var doc map[string][]isoEntry
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, "", fmt.Errorf("gen: %s: %w", path, err)
	}
	return doc[standard], p.source(path), nil
}

// countries: "The ISO 3166-1 country code of Germany is DE (alpha-3 DEU,
// numeric 276)."
func countries(pkgs map[string]*pkg) ([]fact, error) {
	es, src, err := isoFile(pkgs, "3166-1")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, e := range es {
		name := e.Name
		if e.CommonName != "" {
			name = e.CommonName
		}
		text := fmt.Sprintf("The ISO 3166-1 country code of %s is %s (alpha-3 %s, numeric %s)", name, e.Alpha2, e.Alpha3, e.Numeric)
		if e.OfficialName != "" && e.OfficialName != name {
			text += "; its official name is " + e.OfficialName
		}
		out = append(out, fact{Text: text + ".", Source: src, Topic: "countries"})
	}
	return out, nil
}

// languages: "The ISO 639 code of the French language is fr (ISO 639-2
// fra, bibliographic fre)."
func languages(pkgs map[string]*pkg) ([]fact, error) {
	es, src, err := isoFile(pkgs, "639-2")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, e := range es {
		name := e.Name
		if e.CommonName != "" {
			name = e.CommonName
		}
		// "Zaza; Dimili; Dimli": the first name, the others as aliases.
		names := strings.Split(name, "; ")
		name = names[0]
		var text string
		switch {
		case e.Alpha2 != "":
			text = fmt.Sprintf("The ISO 639-1 language code of %s is %s (ISO 639-2 %s", name, e.Alpha2, e.Alpha3)
		default:
			text = fmt.Sprintf("The ISO 639-2 language code of %s is %s (", name, e.Alpha3)
		}
		if e.Bibliographic != "" {
			if e.Alpha2 != "" {
				text += ", "
			}
			text += "bibliographic code " + e.Bibliographic
		}
		text += ")"
		text = trimEmptyParens(text)
		if len(names) > 1 {
			text += "; the language is also called " + joinOr(names[1:])
		}
		out = append(out, fact{Text: text + ".", Source: src, Topic: "languages"})
	}
	return out, nil
}

func trimEmptyParens(s string) string {
	if len(s) >= 3 && s[len(s)-3:] == " ()" {
		return s[:len(s)-3]
	}
	return s
}

// currencies: "The ISO 4217 currency code of the Euro is EUR (numeric 978)."
func currencies(pkgs map[string]*pkg) ([]fact, error) {
	es, src, err := isoFile(pkgs, "4217")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, e := range es {
		text := fmt.Sprintf("The ISO 4217 code of the currency %s is %s (numeric %s).", e.Name, e.Alpha3, e.Numeric)
		out = append(out, fact{Text: text, Source: src, Topic: "currencies"})
	}
	return out, nil
}

// scripts: "The ISO 15924 code of the Cyrillic script is Cyrl (numeric 220)."
func scripts(pkgs map[string]*pkg) ([]fact, error) {
	es, src, err := isoFile(pkgs, "15924")
	if err != nil {
		return nil, err
	}
	var out []fact
	for _, e := range es {
		text := fmt.Sprintf("The ISO 15924 script code of %s is %s (numeric %s).", e.Name, e.Alpha4, e.Numeric)
		out = append(out, fact{Text: text, Source: src, Topic: "scripts"})
	}
	return out, nil
}
