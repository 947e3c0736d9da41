package session

// noBootSessions says why goos has no unlock sessions that end at reboot,
// naming what to use instead, or nil where they work. A session needs a
// per-boot id from the kernel and a directory that lives only in RAM
// (tmpfs), which only Linux gives here. The error matches [ErrNoRAMDir],
// so `lock` still succeeds where there is no session to drop.
func noBootSessions(goos string) error {
	const instead = "; set COMPARTMENT_PASSPHRASE in the environment of the agent or shell instead"
	switch goos {
	case "linux":
		return nil
	case "darwin":
		return noSessionsError("session: macOS has no RAM-only directory for the per-boot secret, so `compartment unlock` cannot last until reboot here; `compartment unlock --keychain` keeps the key in your login keychain until `compartment lock` (reboots included)" + instead)
	case "windows":
		return noSessionsError("session: Windows has no per-boot id and RAM-only directory compartment can use, so `compartment unlock` cannot last until reboot here" + instead)
	default:
		return noSessionsError("session: unlock sessions need Linux (a per-boot id and a RAM-only directory), and this is " + goos + instead)
	}
}

// noSessionsError is ErrNoRAMDir with the platform's own explanation.
type noSessionsError string

func (e noSessionsError) Error() string        { return string(e) }
func (e noSessionsError) Is(target error) bool { return target == ErrNoRAMDir }
