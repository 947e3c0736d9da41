#!/usr/bin/env bash
# sets: run test
# Go modules through the module proxy, so later steps (and the test run in
# a network namespace) never need the network.
set -euo pipefail
echo "Go modules: fetching any that go.sum lists and the module cache lacks (a first run takes a minute or two)"
go mod download
