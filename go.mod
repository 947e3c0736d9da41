module github.com/compartment/compartment

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/edsrzf/mmap-go v1.2.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/mark3labs/mcp-go v1.2.1
	github.com/rivo/uniseg v0.4.7
	github.com/sugarme/tokenizer v0.3.0
	github.com/yalue/onnxruntime_go v1.27.0
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	golang.org/x/text v0.44.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/emirpasic/gods v1.18.1 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/patrickmn/go-cache v2.1.0+incompatible // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/schollz/progressbar/v2 v2.15.0 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/sugarme/regexpset v0.0.0-20200920021344-4d4ec8eaf93c // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)
