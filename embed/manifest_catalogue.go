package embed

import "strings"

// DefaultDownload is the model `compartment setup download-model` installs
// when no name is given.
const DefaultDownload = "bge-small-en-v1.5-int8"

// bgeSmallRevision is the commit of huggingface.co/Xenova/bge-small-en-v1.5
// the catalogue downloads from. Pinning the commit (not "main") keeps the
// URLs serving the bytes the hashes below describe.
const bgeSmallRevision = "ea104dacec62c0de699686887e3f920caeb4f3e3"

// huggingFace is the host every catalogue URL starts with; a mirror (or a
// test server) replaces it, see [InstallOptions.BaseURL].
const huggingFace = "https://huggingface.co"

// catalogue lists the models compartment knows how to download.
//
// Provenance of the pinned hashes: this machine cannot reach the model hub,
// so they were not computed here. They are the SHA-256 values several
// unrelated public projects pin for the same files at the same revision
// (Xenova/bge-small-en-v1.5 @ ea104dac: onnx/model_int8.onnx, 33,760,831
// bytes; tokenizer.json, 711,396 bytes, identical to BAAI's own). An
// install refuses any byte that does not match, so a wrong value here can
// only make the download fail, never install something else.
var catalogue = []Manifest{{
	Format:  manifestFormat,
	Name:    "bge-small-en-v1.5-int8",
	Backend: "onnx",
	Files: []ManifestItem{{
		Role:   RoleWeights,
		Path:   "model_int8.onnx",
		SHA256: "bf64d05457cb391fa88d045faf5927a15ea36d96228ddf23ea970087afdc1197",
		Size:   33760831,
		URL:    huggingFace + "/Xenova/bge-small-en-v1.5/resolve/" + bgeSmallRevision + "/onnx/model_int8.onnx",
	}, {
		Role:   RoleTokenizer,
		Path:   "tokenizer.json",
		SHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
		Size:   711396,
		URL:    huggingFace + "/Xenova/bge-small-en-v1.5/resolve/" + bgeSmallRevision + "/tokenizer.json",
	}},
	Dim:         384,
	Pooling:     "cls",
	MaxTokens:   512,
	QueryPrefix: "Represent this sentence for searching relevant passages: ",
	Licence:     "MIT",
	Source:      "https://huggingface.co/BAAI/bge-small-en-v1.5 (int8 ONNX export: Xenova/bge-small-en-v1.5)",
	// The spec's constants were set for this model's cosine scale.
	Calibration: &SpecCalibration,
}}

// catalogueAliases maps the names people type to catalogue names.
var catalogueAliases = map[string]string{
	"bge-small-en-v1.5": "bge-small-en-v1.5-int8",
	"bge-small":         "bge-small-en-v1.5-int8",
}

// CatalogueModel returns the download manifest of a named model.
func CatalogueModel(name string) (Manifest, bool) {
	if alias, ok := catalogueAliases[strings.ToLower(name)]; ok {
		name = alias
	}
	for _, m := range catalogue {
		if strings.EqualFold(m.Name, name) {
			m.Files = append([]ManifestItem(nil), m.Files...)
			cal := *m.Calibration
			m.Calibration = &cal
			return m, true
		}
	}
	return Manifest{}, false
}

// CatalogueNames lists the models [CatalogueModel] knows.
func CatalogueNames() []string {
	names := make([]string, len(catalogue))
	for i, m := range catalogue {
		names[i] = m.Name
	}
	return names
}
