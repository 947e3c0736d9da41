//go:build linux

package offline

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64
