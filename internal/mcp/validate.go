package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Tool arguments are checked against each tool's input schema here rather
// than by mcp-go's WithInputSchemaValidation, whose messages print the
// validator's Go values ("<root>: &{Missing:[source]}"). A model, and a
// person reading its log, gets one sentence per problem instead.

// argSchemas holds the compiled input schema of every tool.
type argSchemas map[string]*jsonschema.Schema

func compileArgSchemas(defs []toolDef) (argSchemas, error) {
	out := argSchemas{}
	for _, d := range defs {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(d.in)))
		if err != nil {
			return nil, fmt.Errorf("mcp: %s: decode input schema: %w", d.name, err)
		}
		url := "mem:///compartment/" + d.name + ".json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("mcp: %s: input schema: %w", d.name, err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s: compile input schema: %w", d.name, err)
		}
		out[d.name] = sch
	}
	return out, nil
}

// check validates a call's arguments; the error is the message to return.
func (a argSchemas) check(tool string, args json.RawMessage) error {
	sch := a[tool]
	if sch == nil {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("%s: the arguments are not valid JSON: %v", tool, err)
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("%s: the arguments do not match the tool's schema: %v", tool, err)
	}
	var msgs []string
	collectArgProblems(verr, &msgs)
	return fmt.Errorf("%s: %s; fix the arguments and call it again", tool, strings.Join(msgs, "; "))
}

var argPrinter = message.NewPrinter(language.English)

func collectArgProblems(e *jsonschema.ValidationError, out *[]string) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectArgProblems(c, out)
		}
		return
	}
	at := strings.Join(e.InstanceLocation, ".")
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, fmt.Sprintf("the argument %q is required", join(at, m)))
		}
	case *kind.Type:
		var want []string
		for _, w := range k.Want {
			if w != "null" || len(k.Want) == 1 {
				want = append(want, jsonTypeName(w))
			}
		}
		*out = append(*out, fmt.Sprintf("%q must be %s, not %s", at, strings.Join(want, " or "), jsonTypeName(k.Got)))
	case *kind.Minimum:
		*out = append(*out, fmt.Sprintf("%q must be at least %s, not %s", at, ratString(k.Want), ratString(k.Got)))
	case *kind.Maximum:
		*out = append(*out, fmt.Sprintf("%q must be at most %s, not %s", at, ratString(k.Want), ratString(k.Got)))
	case *kind.AdditionalProperties:
		*out = append(*out, fmt.Sprintf("unknown argument %s", quoteAll(k.Properties, at)))
	default:
		where := "the arguments"
		if at != "" {
			where = fmt.Sprintf("%q", at)
		}
		*out = append(*out, where+": "+e.ErrorKind.LocalizedString(argPrinter))
	}
}

// jsonTypeName is a JSON type as a sentence says it.
func jsonTypeName(t string) string {
	switch t {
	case "integer", "object", "array":
		return map[string]string{"integer": "an integer", "object": "an object", "array": "a list"}[t]
	case "null":
		return "null"
	}
	return "a " + t
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func quoteAll(names []string, parent string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", join(parent, n))
	}
	return strings.Join(q, ", ")
}

// ratString writes a schema bound as a plain number.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}
