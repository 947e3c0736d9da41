package main

// verbs are the words a manual's NAME description may start with that are
// verbs in the imperative ("list directory contents"); only these are
// conjugated into a sentence. The list was read off the pinned pages.
var verbs = map[string]bool{}

func init() {
	for _, w := range verbList {
		verbs[w] = true
	}
}

var verbList = []string{
	"add", "alter", "annotate", "apply", "attach", "build", "call", "change", "check",
	"choose", "clone", "collect", "columnate", "compare", "compress", "compute",
	"concatenate", "configure", "control", "convert", "copy", "count", "create", "debug", "decapsulate", "decode", "disable",
	"decompress", "delay", "delete", "discard", "display", "do", "download", "dump", "edit",
	"enable", "encapsulate", "encode", "enter", "estimate", "evaluate", "execute", "expand",
	"extract", "factor", "fetch", "filter", "find", "follow", "force", "format", "gather",
	"generate", "get", "give", "identify", "initialize", "insert", "install", "join",
	"kill", "link", "list", "load", "locate", "lock", "look", "make", "manage",
	"manipulate", "merge", "mirror", "modify", "number", "mount", "move", "output", "overwrite",
	"pack", "parse", "peek", "perform", "pick", "play", "preallocate", "prepare", "print",
	"produce", "provide", "prune", "push", "query", "re-run", "read", "reapply", "rebuild",
	"receive", "recompress", "record", "redirect", "reduce", "reflect", "register", "remove", "rename",
	"report", "reset", "resize", "restore", "retrieve", "reuse", "reverse", "revert",
	"rewrite", "run", "scan", "search", "see", "send", "set", "show", "shrink", "sign",
	"sort", "specify", "split", "start", "stash", "stop", "strip", "summarize", "suspend",
	"switch", "synchronize", "tell", "trace", "transfer", "transform", "translate",
	"uncompress", "unload", "unlock", "unmount", "unpack", "unshare", "update", "use",
	"validate", "verify", "wait", "watch", "wipe", "wrap", "write",
}

// conjugated are descriptions' first words already in the third person
// ("creates a tag"): the description is used as it is.
var conjugated = map[string]bool{
	"adds": true, "applies": true, "compares": true, "concatenates": true, "creates": true,
	"ensures": true, "extracts": true, "generates": true, "lists": true, "listens": true,
	"reads": true, "replaces": true, "verifies": true, "prints": true, "shows": true,
}
