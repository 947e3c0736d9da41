//go:build cgo

package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Batching limits: a batch holds at most this many sequences, and at most
// this many padded tokens, so one long memory does not make a batch of
// short ones pay for its padding many times over.
const (
	onnxMaxBatchSeqs   = 32
	onnxMaxBatchTokens = 16384
)

// EnvEmbedThreads sets the threads ONNX Runtime uses for one inference
// (default 1; see sessionOptions).
const EnvEmbedThreads = "COMPARTMENT_EMBED_THREADS"

// onnxEncoder runs a transformer encoder exported to ONNX: tokenise, frame
// each window as [CLS] … [SEP], run in padded batches with an attention
// mask, pool (CLS or mean over real tokens), L2-normalise.
type onnxEncoder struct {
	info     ModelInfo
	tok      textTokenizer
	specials specialTokens
	sess     *ort.DynamicAdvancedSession
	feeds    []onnxFeed // what each session input receives, in order
	pooled   bool       // the graph's output is already [batch, dim]
	close    sync.Once
}

// onnxFeed is what one model input is filled with.
type onnxFeed int

const (
	feedIDs onnxFeed = iota
	feedMask
	feedTypes
)

// openONNX verifies the model's files against the manifest and starts an
// inference session.
func openONNX(m *Manifest, dir, runtimeLib string) (Encoder, error) {
	if err := m.Verify(dir); err != nil {
		return nil, err
	}
	pin, err := m.Pin()
	if err != nil {
		return nil, err
	}
	if _, err := ensureORT(runtimeLib); err != nil {
		return nil, err
	}
	tokFile, _ := m.file(RoleTokenizer)
	tok, err := loadTokenizer(filepath.Join(dir, tokFile.Path))
	if err != nil {
		return nil, err
	}
	weights, _ := m.file(RoleWeights)
	e := &onnxEncoder{
		info: ModelInfo{Name: m.Name, SHA256: pin, Dim: m.Dim, MaxTokens: m.MaxTokens,
			QueryPrefix: m.QueryPrefix, Pooling: m.Pooling, Calibration: *m.Calibration},
		tok:      tok,
		specials: tok.Specials(),
	}
	if err := e.startSession(filepath.Join(dir, weights.Path)); err != nil {
		return nil, fmt.Errorf("embed: model %s: %w", m.Name, err)
	}
	return e, nil
}

// startSession matches the graph's inputs and output to what the encoder
// feeds and reads, then creates the session.
func (e *onnxEncoder) startSession(path string) error {
	inputs, outputs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return fmt.Errorf("read graph: %w", err)
	}
	var names []string
	for _, in := range inputs {
		feed, ok := map[string]onnxFeed{"input_ids": feedIDs, "attention_mask": feedMask,
			"token_type_ids": feedTypes}[in.Name]
		if !ok {
			return fmt.Errorf("graph input %q: only input_ids, attention_mask and token_type_ids are fed", in.Name)
		}
		if in.DataType != ort.TensorElementDataTypeInt64 {
			return fmt.Errorf("graph input %q is %v, want int64", in.Name, in.DataType)
		}
		names = append(names, in.Name)
		e.feeds = append(e.feeds, feed)
	}
	if !slices.Contains(names, "input_ids") {
		return fmt.Errorf("graph has no input_ids input")
	}
	out, err := pickOutput(outputs, e.info.Dim)
	if err != nil {
		return err
	}
	e.pooled = len(out.Dimensions) == 2
	opts, err := sessionOptions()
	if err != nil {
		return err
	}
	defer opts.Destroy()
	e.sess, err = ort.NewDynamicAdvancedSession(path, names, []string{out.Name}, opts)
	if err != nil {
		return fmt.Errorf("start session: %w", err)
	}
	return nil
}

// pickOutput prefers last_hidden_state, else the first float output of
// rank 3 ([batch, seq, dim]) or 2 ([batch, dim], pooled inside the graph).
func pickOutput(outputs []ort.InputOutputInfo, dim int) (ort.InputOutputInfo, error) {
	var chosen *ort.InputOutputInfo
	for i := range outputs {
		o := &outputs[i]
		usable := o.DataType == ort.TensorElementDataTypeFloat &&
			(len(o.Dimensions) == 3 || len(o.Dimensions) == 2)
		if usable && (chosen == nil || o.Name == "last_hidden_state") {
			chosen = o
		}
	}
	if chosen == nil {
		return ort.InputOutputInfo{}, fmt.Errorf("graph has no float output of shape [batch, seq, dim] or [batch, dim]")
	}
	if last := chosen.Dimensions[len(chosen.Dimensions)-1]; last > 0 && int(last) != dim {
		return ort.InputOutputInfo{}, fmt.Errorf("graph output %q has %d dimensions, manifest says %d", chosen.Name, last, dim)
	}
	return *chosen, nil
}

// sessionOptions runs each inference on one thread unless
// COMPARTMENT_EMBED_THREADS asks for more, and stops idle worker threads
// from spinning. Measured here (2 cores shared with the agents and the
// rest of the machine): one thread is faster than two for queries and
// memories, in CPU and in wall time, because waking a second thread for
// each of a graph's small operators costs more than it saves; concurrent
// requests still use both cores, one each. A bulk re-embedding on an idle
// machine can set COMPARTMENT_EMBED_THREADS=2.
func sessionOptions() (*ort.SessionOptions, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	threads := 1
	if n, err := strconv.Atoi(os.Getenv(EnvEmbedThreads)); err == nil && n > 0 {
		threads = n
	}
	if err := opts.SetIntraOpNumThreads(threads); err != nil {
		opts.Destroy()
		return nil, fmt.Errorf("session options: %w", err)
	}
	if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		opts.Destroy()
		return nil, fmt.Errorf("session options: %w", err)
	}
	// No arena and no memory patterns: both keep the largest batch's
	// buffers for the life of the session (measured: a daemon that served
	// four clients' long texts grew from 32 to 155 MB); without them the
	// buffers go back to the C heap after each run.
	if err := opts.SetCpuMemArena(false); err != nil {
		opts.Destroy()
		return nil, fmt.Errorf("session options: %w", err)
	}
	if err := opts.SetMemPattern(false); err != nil {
		opts.Destroy()
		return nil, fmt.Errorf("session options: %w", err)
	}
	return opts, nil
}

// Info implements Encoder.
func (e *onnxEncoder) Info() ModelInfo { return e.info }

// Close implements Encoder.
func (e *onnxEncoder) Close() error {
	var err error
	e.close.Do(func() {
		if e.sess != nil {
			err = e.sess.Destroy()
		}
	})
	return err
}

// EmbedDocuments implements Encoder: every text becomes its token windows,
// and all windows of all texts are embedded together.
func (e *onnxEncoder) EmbedDocuments(texts []string) ([]Document, error) {
	docs := make([]Document, len(texts))
	var seqs [][]int32
	for i, text := range texts {
		ids, _, err := e.tok.Encode(text)
		if err != nil {
			return nil, err
		}
		docs[i].Tokens = len(ids)
		docs[i].Windows = Windows(len(ids))
		for _, w := range docs[i].Windows {
			seqs = append(seqs, ids[w[0]:w[1]])
		}
	}
	vecs, err := e.embedSequences(seqs)
	if err != nil {
		return nil, err
	}
	for i := range docs {
		docs[i].Vectors, vecs = vecs[:len(docs[i].Windows)], vecs[len(docs[i].Windows):]
	}
	return docs, nil
}

// EmbedQuery implements Encoder: the query prefix, then the text, cut to
// the model's token limit.
func (e *onnxEncoder) EmbedQuery(text string) ([]float32, error) {
	ids, _, err := e.tok.Encode(e.info.QueryPrefix + text)
	if err != nil {
		return nil, err
	}
	if limit := e.info.MaxTokens - 2; len(ids) > limit {
		ids = ids[:limit]
	}
	vecs, err := e.embedSequences([][]int32{ids})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// embedSequences embeds token sequences (without special tokens), longest
// first so each batch pads little, and returns vectors in input order.
func (e *onnxEncoder) embedSequences(seqs [][]int32) ([][]float32, error) {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(seqs[order[a]]) > len(seqs[order[b]]) })
	out := make([][]float32, len(seqs))
	for start := 0; start < len(order); {
		width := len(seqs[order[start]]) + 2
		end := start + 1
		for end < len(order) && end-start < onnxMaxBatchSeqs && (end-start+1)*width <= onnxMaxBatchTokens {
			end++
		}
		batch := make([][]int32, end-start)
		for k := range batch {
			batch[k] = seqs[order[start+k]]
		}
		vecs, err := e.runBatch(batch, width)
		if err != nil {
			return nil, err
		}
		for k, v := range vecs {
			out[order[start+k]] = v
		}
		start = end
	}
	return out, nil
}

// runBatch frames, pads and runs one batch of width tokens per row, and
// pools each row into a unit vector.
func (e *onnxEncoder) runBatch(batch [][]int32, width int) ([][]float32, error) {
	rows := len(batch)
	ids := make([]int64, rows*width)
	mask := make([]int64, rows*width)
	types := make([]int64, rows*width) // single sequences: all segment 0
	for r, seq := range batch {
		row := ids[r*width : (r+1)*width]
		row[0] = int64(e.specials.Open)
		for k, id := range seq {
			row[k+1] = int64(id)
		}
		row[len(seq)+1] = int64(e.specials.Close)
		for k := len(seq) + 2; k < width; k++ {
			row[k] = int64(e.specials.Pad)
		}
		for k := 0; k < len(seq)+2; k++ {
			mask[r*width+k] = 1
		}
	}
	hidden, err := e.run(rows, width, ids, mask, types)
	if err != nil {
		return nil, err
	}
	vecs := make([][]float32, rows)
	for r := range vecs {
		if e.pooled {
			vecs[r] = append([]float32(nil), hidden[r*e.info.Dim:(r+1)*e.info.Dim]...)
		} else {
			vecs[r] = poolRow(hidden[r*width*e.info.Dim:(r+1)*width*e.info.Dim], mask[r*width:(r+1)*width], e.info.Dim, e.info.Pooling)
		}
		normaliseL2(vecs[r])
	}
	return vecs, nil
}

// run feeds one padded batch through the session and returns the output
// ([rows, width, dim], or [rows, dim] for a pooled graph) as one slice.
func (e *onnxEncoder) run(rows, width int, ids, mask, types []int64) ([]float32, error) {
	shape := ort.NewShape(int64(rows), int64(width))
	inputs := make([]ort.Value, len(e.feeds))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, feed := range e.feeds {
		data := map[onnxFeed][]int64{feedIDs: ids, feedMask: mask, feedTypes: types}[feed]
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, fmt.Errorf("embed: input tensor: %w", err)
		}
		inputs[i] = t
	}
	outShape := ort.NewShape(int64(rows), int64(width), int64(e.info.Dim))
	if e.pooled {
		outShape = ort.NewShape(int64(rows), int64(e.info.Dim))
	}
	hidden := make([]float32, outShape.FlattenedSize())
	out, err := ort.NewTensor(outShape, hidden)
	if err != nil {
		return nil, fmt.Errorf("embed: output tensor: %w", err)
	}
	defer out.Destroy()
	if err := e.sess.Run(inputs, []ort.Value{out}); err != nil {
		return nil, fmt.Errorf("embed: model %s: %w", e.info.Name, err)
	}
	// The runtime read and wrote these Go slices through C pointers.
	runtime.KeepAlive(ids)
	runtime.KeepAlive(mask)
	runtime.KeepAlive(types)
	return hidden, nil
}
