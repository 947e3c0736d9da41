package embed

// Inspection is one text as the model reads it: its tokens, its windows
// and their vectors (the JSON of `compartment embed --json`). Vectors
// lists every window's vector when a long text has more than one; Vector
// is the first (or the query's).
type Inspection struct {
	Dim     int         `json:"dim"`
	Model   string      `json:"model"`
	SHA256  string      `json:"sha256"`
	Tokens  int         `json:"tokens"`
	Windows [][2]int    `json:"windows"`
	Vector  []float32   `json:"vector"`
	Vectors [][]float32 `json:"vectors,omitempty"`
	Daemon  int         `json:"daemon_pid,omitempty"` // the embedding daemon that served it; 0 in this process
}

// Inspect embeds text as a document, or as a search query when query is
// set. A query's tokens are counted as the model reads them: its prefix
// included, cut at the model's limit, in one window.
func Inspect(enc Encoder, text string, query bool) (Inspection, error) {
	info := enc.Info()
	out := Inspection{Dim: info.Dim, Model: info.Name, SHA256: FormatPin(info.SHA256), Daemon: DaemonPID(enc)}
	if !query {
		docs, err := enc.EmbedDocuments([]string{text})
		if err != nil {
			return out, err
		}
		d := docs[0]
		out.Tokens, out.Windows, out.Vector = d.Tokens, d.Windows, d.Vectors[0]
		if len(d.Vectors) > 1 {
			out.Vectors = d.Vectors
		}
		return out, nil
	}
	v, err := enc.EmbedQuery(text)
	if err != nil {
		return out, err
	}
	docs, err := enc.EmbedDocuments([]string{info.QueryPrefix + text})
	if err != nil {
		return out, err
	}
	out.Tokens = docs[0].Tokens
	if limit := info.MaxTokens - 2; limit > 0 && out.Tokens > limit {
		out.Tokens = limit
	}
	out.Windows = [][2]int{{0, out.Tokens}}
	out.Vector = v
	return out, nil
}
