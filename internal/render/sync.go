package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/devsync"
)

// SyncSetUp says which folder a sync init or join set up, this device's
// id, and what the first merge did (what: "initialised" or "joined").
func SyncSetUp(w io.Writer, what, folder string, device [16]byte, rep devsync.Report) {
	fmt.Fprintf(w, "sync folder %s %s: this device is %x\n", folder, what, device)
	SyncReport(w, rep)
}

// SyncReport is one merge: what it wrote, removed and logged, what waits.
func SyncReport(w io.Writer, rep devsync.Report) {
	fmt.Fprintf(w, "merged: %d written, %d removed (%d shredded), %d operations logged, %d waiting for their memory to arrive\n",
		rep.Written, rep.Deleted, rep.Shredded, rep.Logged, rep.Pending)
	for _, c := range rep.Copying {
		fmt.Fprintf(w, "still copying: %s (read up to its last whole operation)\n", Inert(c))
	}
	for _, s := range rep.Ignored {
		fmt.Fprintf(w, "ignored: %s\n", Inert(s))
	}
}

// SyncStatus is the sync folder, its devices and what is pending.
func SyncStatus(w io.Writer, st devsync.Status) {
	fmt.Fprintf(w, "folder     %s\n", Inert(st.Folder))
	fmt.Fprintf(w, "this       %s (%s)\n", Inert(st.DeviceName), st.Device)
	for _, d := range st.Devices {
		var notes []string
		if d.This {
			notes = append(notes, "this device")
		}
		if !d.Left.IsZero() {
			notes = append(notes, "left "+d.Left.Format(time.DateOnly))
		}
		if d.Copying {
			notes = append(notes, "still copying")
		}
		last := "no operation yet"
		if d.NoLog {
			last = "its log has not arrived"
		} else if !d.LastOp.IsZero() {
			last = "last operation " + d.LastOp.Local().Format("2006-01-02 15:04:05")
		}
		extra := ""
		if len(notes) > 0 {
			extra = " [" + strings.Join(notes, ", ") + "]"
		}
		fmt.Fprintf(w, "device     %-16s %s  %d operations, %s%s\n", Inert(d.Name), d.ID[:8], d.Operations, last, extra)
	}
	fmt.Fprintf(w, "pending    %d memories named by operations whose store has not arrived; %d logs still copying\n",
		st.LastMerge.Pending, len(st.LastMerge.Copying))
	for _, s := range st.LastMerge.Ignored {
		fmt.Fprintf(w, "ignored    %s\n", Inert(s))
	}
}

// SyncAttached is what a command says on stderr after the merge every
// open does: a problem (the command goes on), or what came from the
// other devices.
func SyncAttached(errw io.Writer, rep devsync.Report, err error) {
	if err != nil {
		fmt.Fprintf(errw, "compartment: sync: %s\n", Inert(err.Error()))
	} else if rep.Written+rep.Deleted > 0 {
		fmt.Fprintf(errw, "compartment: sync: merged %d memories and relations from other devices, removed %d\n", rep.Written, rep.Deleted)
	}
}

// SyncLeft says that the vault no longer syncs with folder.
func SyncLeft(w io.Writer, folder string) {
	fmt.Fprintf(w, "this vault no longer syncs with %s; it keeps every memory, and the other devices keep what it wrote\n", Inert(folder))
}
