#!/usr/bin/env bash
# Go modules through the module proxy, so later steps (and the test run in
# a network namespace) never need the network.
set -euo pipefail
go mod download
