package offline

import "fmt"

// unsupported is [ErrUnsupported] for goos/goarch, with what to do there
// instead. compartment never opens a network socket on any system; only
// the kernel's guarantee of it is Linux's.
func unsupported(goos, goarch string) error {
	instead := "compartment itself opens no network socket; to have the system enforce it, run it where it has no network"
	switch goos {
	case "darwin":
		instead = "compartment itself opens no network socket; to have macOS enforce it, run it under sandbox-exec with a profile that denies network*, or block it in your firewall"
	case "windows":
		instead = "compartment itself opens no network socket; to have Windows enforce it, add an outbound block rule for compartment.exe in Windows Defender Firewall"
	case "linux":
		instead = "compartment itself opens no network socket; to have the kernel enforce it on " + goarch + ", run it in a network namespace with no interfaces (unshare -rn)"
	}
	return fmt.Errorf("%w (this is %s/%s): %s; or leave out --assert-offline and COMPARTMENT_ASSERT_OFFLINE", ErrUnsupported, goos, goarch, instead)
}
