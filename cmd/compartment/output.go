package main

import (
	"encoding/json"
	"io"
)

// printJSON writes v as indented JSON and a newline: the --json output of
// every command.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
