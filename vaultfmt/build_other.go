//go:build !unix

package vaultfmt

import "os"

// buildsUnlocked is false here: Windows refuses to rename over a file
// another handle has mapped, and locks byte ranges mandatorily, so every
// compaction runs under the writer lock ([Vault.StartBuild] returns none).
const buildsUnlocked = false

func tryLockBuild(*os.File) (bool, error) { return false, nil }
