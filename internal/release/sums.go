package release

// SHA256SUMS is the format sha256sum(1) writes and `sha256sum -c` checks:
// one line per file, 64 lowercase hex digits, two spaces (or space and
// '*', binary mode), the file name relative to the list, '\n'. Names are
// plain relative paths with '/' separators, never absolute, never "..".

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// FormatSums writes a SHA256SUMS list, sorted by name.
func FormatSums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(sums[n] + "  " + n + "\n")
	}
	return []byte(b.String())
}

// ParseSums reads a SHA256SUMS list into name -> hex digest, refusing
// malformed lines, unsafe names and duplicates.
func ParseSums(data []byte) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" && len(data) == 0 {
			break
		}
		if len(line) < 67 || (line[64:66] != "  " && line[64:66] != " *") {
			return nil, fmt.Errorf("release: SHA256SUMS line %d is not '<sha256>  <name>'", i+1)
		}
		sum, name := line[:64], line[66:]
		if strings.Trim(sum, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("release: SHA256SUMS line %d: %q is not a lowercase hex SHA-256", i+1, sum)
		}
		if !safeName(name) {
			return nil, fmt.Errorf("release: SHA256SUMS line %d: unsafe file name %q", i+1, name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("release: SHA256SUMS lists %s twice", name)
		}
		out[name] = sum
	}
	return out, nil
}

// safeName accepts relative slash-separated names that stay inside their
// directory.
func safeName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00\r") {
		return false
	}
	clean := path.Clean(name)
	return clean == name && clean != "." && clean != ".." && !strings.HasPrefix(clean, "../")
}
