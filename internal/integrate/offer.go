package integrate

import "fmt"

// Short is the shortest name the command line takes for c (its id or an
// alias): what `compartment integrate NAME` is told to run.
func (c *Client) Short() string {
	s := c.ID
	for _, a := range c.Aliases {
		if len(a) < len(s) {
			s = a
		}
	}
	return s
}

// Offer is init's offer: each client [Offerable] finds, in turn, is put
// to ask (its question, e.g. "Found Claude Code. Connect it to the vault
// now? [y/N] "), and then given to then with the answer (then wires it on
// a yes) before the next is asked. ask answers no where there is nobody to
// ask. It returns how many clients were offered.
func Offer(e Env, ask func(question string) bool, then func(c *Client, yes bool)) int {
	found := Offerable(e)
	for _, c := range found {
		then(c, ask(fmt.Sprintf("Found %s. Connect it to the vault now? [y/N] ", c.Name)))
	}
	return len(found)
}
