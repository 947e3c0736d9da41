// Command hello is what testbin's own test builds and runs: small, so the
// test is quick, and it prints its arguments so the test can see it ran.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	fmt.Println("hello " + strings.Join(os.Args[1:], " "))
}
