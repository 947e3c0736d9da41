// Package testbin builds the module's commands for end-to-end tests: each
// once per test binary, into its own temporary directory, so that tests
// run the real executable as a subprocess. It is for tests only; it knows
// the import path of what it builds and nothing of what the command does.
package testbin
