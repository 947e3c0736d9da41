package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestContainerImage builds the Dockerfile's image (its FROM scratch final
// stage, from a static binary built here, so no registry is needed) with
// podman, checks what the spec promises (no port, an unprivileged user,
// /data as the volume, serve as the default command), and runs the binary
// inside the image's own file system. Running the container itself is
// tried too; where the sandbox refuses it the test says so in its log.
func TestContainerImage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the container build takes a minute")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (make setup installs it where apt works); the container image is not tested")
	}
	storage := t.TempDir()
	podman := func(args ...string) *exec.Cmd {
		return exec.Command("podman", append([]string{"--root", filepath.Join(storage, "root"),
			"--runroot", filepath.Join(storage, "run"), "--storage-driver", "vfs",
			"--cgroup-manager", "cgroupfs", "--events-backend", "none"}, args...)...)
	}
	if out, err := podman("info").CombinedOutput(); err != nil {
		t.Skipf("podman cannot work here: %v\n%s", err, out)
	}
	build := exec.Command(filepath.Join("..", "..", "scripts", "container.sh"), "compartment:test")
	build.Env = append(os.Environ(), "CONTAINER_STORAGE="+storage, "VERSION=container-test")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("container build: %v\n%s", err, out)
	}

	out, err := podman("image", "inspect", "compartment:test").Output()
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	var img []struct {
		Config struct {
			User         string
			ExposedPorts map[string]any
			Volumes      map[string]any
			Entrypoint   []string
			Cmd          []string
			Env          []string
		}
	}
	if err := json.Unmarshal(out, &img); err != nil || len(img) != 1 {
		t.Fatalf("inspect output: %v\n%s", err, out)
	}
	c := img[0].Config
	if c.User != "65532:65532" || len(c.ExposedPorts) != 0 || c.Volumes["/data"] == nil ||
		strings.Join(c.Entrypoint, " ") != "/compartment" || strings.Join(c.Cmd, " ") != "serve" {
		t.Fatalf("image config: %+v", c)
	}
	if !slices.Contains(c.Env, "COMPARTMENT_VAULT=/data/memory.vault") {
		t.Fatalf("the vault is not on /data: %v", c.Env)
	}

	// The binary in the image runs with nothing but the image around it:
	// static, no loader, no libraries.
	mnt, err := podman("image", "mount", "compartment:test").Output()
	if err != nil {
		t.Fatalf("image mount: %v", err)
	}
	root := strings.TrimSpace(string(mnt))
	defer podman("image", "unmount", "compartment:test").Run()
	for _, p := range []string{"compartment", "etc/passwd", "data"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Fatalf("image lacks /%s: %v", p, err)
		}
	}
	entries, _ := os.ReadDir(root)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "compartment data etc tmp" {
		t.Fatalf("the image holds more than the binary, /etc, /data and /tmp: %v", names)
	}
	got, err := exec.Command(filepath.Join(root, "compartment"), "--version").Output()
	if err != nil || strings.TrimSpace(string(got)) != "container-test" {
		t.Fatalf("the image's binary: %v, %q", err, got)
	}

	run, err := podman("run", "--rm", "--network", "none", "compartment:test", "--version").CombinedOutput()
	if err != nil {
		t.Logf("image built and checked; running containers is refused in this sandbox: %v: %s", err, strings.TrimSpace(string(run)))
		return
	}
	if strings.TrimSpace(string(run)) != "container-test" {
		t.Fatalf("podman run --version: %q", run)
	}
}
