package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/release"
)

// LMEDownloads pins the LongMemEval files `setup download-longmemeval`
// installs, by URL at a fixed dataset revision and by SHA-256. The file is
// the cleaned release of LongMemEval_S (Di Wu et al., ICLR 2025; MIT
// licence). The digest was recorded from a public pin of this file, not
// checked here (no model hub is reachable from this project's build
// machines): a file that does not match is refused, never installed.
var LMEDownloads = map[string]embed.ManifestItem{
	"s": {
		Role:   "longmemeval",
		Path:   "s.json",
		URL:    "https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/98d7416c24c778c2fee6e6f3006e7a073259d48f/longmemeval_s_cleaned.json",
		SHA256: "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442",
	},
}

// DefaultLMEDir is where the variants are installed and where `bench
// --longmemeval s` finds them.
func DefaultLMEDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("bench: longmemeval: %w", err)
	}
	return filepath.Join(home, ".compartment", "benchmarks", "longmemeval"), nil
}

// DownloadLongMemEval installs a pinned variant into dir ("" means
// [DefaultLMEDir]) from the network or, with opts.From, from a local
// directory holding the file (by its name in the URL or as <variant>.json).
// The file appears complete or not at all; one already there and intact is
// left alone. It returns the installed path.
func DownloadLongMemEval(variant, dir string, opts embed.InstallOptions) (string, error) {
	item, ok := LMEDownloads[variant]
	if !ok {
		names := make([]string, 0, len(LMEDownloads))
		for n := range LMEDownloads {
			names = append(names, n)
		}
		sort.Strings(names)
		return "", fmt.Errorf("bench: no pinned LongMemEval variant %q (pinned: %s); other files run with `bench --longmemeval PATH`",
			variant, strings.Join(names, ", "))
	}
	if dir == "" {
		var err error
		if dir, err = DefaultLMEDir(); err != nil {
			return "", err
		}
	}
	target := filepath.Join(dir, item.Path)
	if sum, _, err := release.FileSHA256(target); err == nil && strings.EqualFold(sum, item.SHA256) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "LongMemEval %s is already installed in %s\n", variant, target)
		}
		return target, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("bench: longmemeval: %w", err)
	}
	staging, err := os.MkdirTemp(dir, ".download-")
	if err != nil {
		return "", fmt.Errorf("bench: longmemeval: %w", err)
	}
	defer os.RemoveAll(staging)
	tmp := filepath.Join(staging, item.Path)
	if err := embed.FetchFile(item, tmp, opts); err != nil {
		return "", fmt.Errorf("bench: longmemeval %s: %w", variant, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		return "", fmt.Errorf("bench: longmemeval: %w", err)
	}
	return target, nil
}
