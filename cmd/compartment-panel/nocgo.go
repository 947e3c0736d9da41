//go:build !cgo && !windows

// Command compartment-panel needs cgo (its toolkit draws with OpenGL);
// built without it, it can still manage the login entry and says how to
// get the window.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	fs := flag.NewFlagSet("compartment-panel", flag.ExitOnError)
	login := fs.String("login", "", "on, off or status: start the panel when you log in")
	fs.Parse(os.Args[1:])
	err := errors.New("this build has no window (built with CGO_ENABLED=0); rebuild with cgo (make build) to use the panel")
	if *login != "" {
		err = loginCmd(*login, os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compartment-panel: %v\n", err)
		os.Exit(1)
	}
}
