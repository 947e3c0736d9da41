package release

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A release version is vMAJOR.MINOR.PATCH, optionally with a pre-release
// (-rc.1) and git describe's commits-since-tag suffix (-12-gdeadbee, and
// -dirty). scripts/release.sh writes v0.0.0-N-gHASH before the first tag,
// so builds from one branch still order by commit count.
var versionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+?))??(?:-(\d+)-g[0-9a-f]+)?(?:-dirty)?$`)

type version struct {
	nums    [3]int
	pre     []string // nil: a release, which sorts after its pre-releases
	commits int      // commits after the tag
}

func parseVersion(s string) (version, bool) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return version{}, false
	}
	var v version
	for i := range v.nums {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return version{}, false
		}
		v.nums[i] = n
	}
	if m[4] != "" {
		v.pre = strings.Split(m[4], ".")
	}
	if m[5] != "" {
		v.commits, _ = strconv.Atoi(m[5])
	}
	return v, true
}

// compareVersions orders a and b (-1, 0, 1); false when either is not a
// release version.
func compareVersions(a, b string) (int, bool) {
	va, okA := parseVersion(a)
	vb, okB := parseVersion(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range va.nums {
		if c := cmpInt(va.nums[i], vb.nums[i]); c != 0 {
			return c, true
		}
	}
	if c := comparePre(va.pre, vb.pre); c != 0 {
		return c, true
	}
	return cmpInt(va.commits, vb.commits), true
}

// comparePre orders pre-release identifiers as semver does: a release
// after its pre-releases, numeric identifiers numerically and before
// alphanumeric ones, a longer list after its prefix.
func comparePre(a, b []string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		na, errA := strconv.Atoi(a[i])
		nb, errB := strconv.Atoi(b[i])
		var c int
		switch {
		case errA == nil && errB == nil:
			c = cmpInt(na, nb)
		case errA == nil:
			c = -1
		case errB == nil:
			c = 1
		default:
			c = strings.Compare(a[i], b[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CheckVersion refuses candidate when it is older than installed, or when
// the two cannot be ordered (a candidate that is not vMAJOR.MINOR.PATCH,
// or an installed binary whose version is unknown), unless allowDowngrade.
// A development build (installed "dev" or a commit hash) is replaced by any
// release version: that is how a source build moves to a signed release.
func CheckVersion(installed, candidate string, allowDowngrade bool) error {
	if allowDowngrade {
		return nil
	}
	_, candOK := parseVersion(candidate)
	if _, instOK := parseVersion(installed); candOK && !instOK && installed != "" {
		return nil
	}
	c, ok := compareVersions(candidate, installed)
	switch {
	case !ok && installed == "":
		return fmt.Errorf("%w: the installed binary's version is unknown (no trusted compartment.sig beside it), so %s may be older; if you mean to install it, pass --allow-downgrade; nothing was changed", ErrDowngrade, candidate)
	case !ok:
		return fmt.Errorf("%w: %s and the installed %s cannot be ordered (not vMAJOR.MINOR.PATCH versions), so it may be older; if you know it is the one you want, pass --allow-downgrade; nothing was changed", ErrDowngrade, candidate, installed)
	case c < 0:
		return fmt.Errorf("%w: %s is older than the installed %s (an old signed release can carry fixed bugs back); if you mean to go back, pass --allow-downgrade; nothing was changed", ErrDowngrade, candidate, installed)
	}
	return nil
}
