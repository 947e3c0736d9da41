package bench

import (
	"fmt"
	"os"
	"path/filepath"
)

// KeepFrom is the vault size from which the latency table keeps its
// generated vault by default: 100,000 memories take minutes to build, a
// million hours; 20,000 build in well under a minute.
const KeepFrom = 100000

// CacheDirFor is where the latency table keeps its generated vault of
// records memories (LatencyOptions.CacheDir), "" for nowhere: the
// directory given (flag), never with "none", else the user cache
// directory when the vault is large (KeepFrom) or a rebuild was asked.
func CacheDirFor(flag string, records int, rebuild bool) (string, error) {
	switch {
	case flag == "none":
		return "", nil
	case flag != "":
		return flag, nil
	case records < KeepFrom && !rebuild:
		return "", nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("bench: no cache directory for the kept vault (%w): pass --vault-cache DIR or --vault-cache none", err)
	}
	return filepath.Join(dir, "compartment", "bench"), nil
}
