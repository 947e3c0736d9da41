package dash

import (
	"errors"
	"os"
	"os/exec"
)

// OpenBrowser hands url (the one-time login link) to the desktop's browser
// with xdg-open, where a desktop session exists; the error says why not
// otherwise, so the caller can print the link instead.
func OpenBrowser(url string) error {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no desktop session")
	}
	path, err := exec.LookPath("xdg-open")
	if err != nil {
		return errors.New("xdg-open is not installed")
	}
	cmd := exec.Command(path, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
