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

// displayName is the entry's common name, else its name.
func (e isoEntry) displayName() string {
	if e.CommonName != "" {
		return e.CommonName
	}
	return e.Name
}

// isoFacts reads one iso-codes JSON file ({"<standard>": [entries]}) and
// states each entry with phrase.
func isoFacts(pkgs map[string]*pkg, standard, topic string, phrase func(isoEntry) string) ([]fact, error) {
	path := "/usr/share/iso-codes/json/iso_" + standard + ".json"
	p, b, err := pkgFile(pkgs, "iso-codes", path)
	if err != nil {
		return nil, err
	}
	var doc map[string][]isoEntry
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("gen: %s: %w", path, err)
	}
	var out []fact
	for _, e := range doc[standard] {
		out = append(out, fact{Text: phrase(e), Source: p.source(path), Topic: topic})
	}
	return out, nil
}

// countries: "The ISO 3166-1 country code of Germany is DE (alpha-3 DEU,
// numeric 276); its official name is Federal Republic of Germany."
func countries(pkgs map[string]*pkg) ([]fact, error) {
	return isoFacts(pkgs, "3166-1", "countries", func(e isoEntry) string {
		name := e.displayName()
		text := fmt.Sprintf("The ISO 3166-1 country code of %s is %s (alpha-3 %s, numeric %s)", name, e.Alpha2, e.Alpha3, e.Numeric)
		if e.OfficialName != "" && e.OfficialName != name {
			text += "; its official name is " + e.OfficialName
		}
		return text + "."
	})
}

// languages: "The ISO 639-1 language code of French is fr (ISO 639-2 fra,
// bibliographic code fre)."
func languages(pkgs map[string]*pkg) ([]fact, error) {
	return isoFacts(pkgs, "639-2", "languages", func(e isoEntry) string {
		// "Zaza; Dimili; Dimli": the first name, the others as aliases.
		names := strings.Split(e.displayName(), "; ")
		var text string
		switch {
		case e.Alpha2 != "":
			text = fmt.Sprintf("The ISO 639-1 language code of %s is %s (ISO 639-2 %s", names[0], e.Alpha2, e.Alpha3)
		default:
			text = fmt.Sprintf("The ISO 639-2 language code of %s is %s (", names[0], e.Alpha3)
		}
		if e.Bibliographic != "" {
			if e.Alpha2 != "" {
				text += ", "
			}
			text += "bibliographic code " + e.Bibliographic
		}
		text = trimEmptyParens(text + ")")
		if len(names) > 1 {
			text += "; the language is also called " + joinOr(names[1:])
		}
		return text + "."
	})
}

func trimEmptyParens(s string) string {
	if len(s) >= 3 && s[len(s)-3:] == " ()" {
		return s[:len(s)-3]
	}
	return s
}

// currencies: "The ISO 4217 code of the currency Euro is EUR (numeric 978)."
func currencies(pkgs map[string]*pkg) ([]fact, error) {
	return isoFacts(pkgs, "4217", "currencies", func(e isoEntry) string {
		return fmt.Sprintf("The ISO 4217 code of the currency %s is %s (numeric %s).", e.Name, e.Alpha3, e.Numeric)
	})
}

// scripts: "The ISO 15924 script code of Cyrillic is Cyrl (numeric 220)."
func scripts(pkgs map[string]*pkg) ([]fact, error) {
	return isoFacts(pkgs, "15924", "scripts", func(e isoEntry) string {
		return fmt.Sprintf("The ISO 15924 script code of %s is %s (numeric %s).", e.Name, e.Alpha4, e.Numeric)
	})
}
