package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Calibration says what a model's cosines mean. A cosine is not a
// probability and its scale differs from model to model (a bag-of-words
// static model puts unrelated sentences higher than a trained sentence
// encoder does), so every number the product derives from a cosine comes
// from the model's own calibration, fitted when the model is built from
// the model's own material and stored with it (FORMAT.md section 6.2,
// and the manifest's "calibration" object, section 6.1):
//
//	p_vec(cos) = clamp((cos − CosFloor) / (CosCeil − CosFloor), 0, cap)
//
// CosFloor is the cosine unrelated texts reach, CosCeil the cosine of a
// close paraphrase. SameMeaning is the cosine at or above which two texts
// may say the same thing (a store is then checked literally for a
// near-duplicate or a re-affirmation); SameTopic the cosine at or above
// which two opinions are about the same topic (a conflict).
type Calibration struct {
	CosFloor    float64 `json:"cos_floor"`
	CosCeil     float64 `json:"cos_ceil"`
	SameMeaning float64 `json:"same_meaning"`
	SameTopic   float64 `json:"same_topic"`
	// SemanticWeight is the semantic channel's weight w_vec in the fused
	// evidence (the literal channel's is 1 − w_vec). Absent or 0 means
	// the spec's 0.75, which is bge-small's; a static model's is fitted
	// from pairs it never trained on (embed/train/calibrate.go).
	SemanticWeight float64 `json:"semantic_weight,omitempty"`
}

// SpecCalibration is bge-small-en-v1.5's calibration: the constants the
// original tool was tuned with for that model (p_vec bounds 0.25 and
// 0.85, duplicate and re-affirmation 0.97, opinion conflict 0.80).
var SpecCalibration = Calibration{CosFloor: 0.25, CosCeil: 0.85, SameMeaning: 0.97, SameTopic: 0.80}

// ErrUncalibrated marks a model that carries no (valid) calibration: the
// product refuses to rank or decide with it.
var ErrUncalibrated = errors.New("embed: model has no calibration")

// Validate checks that the calibration is usable:
// −1 ≤ CosFloor < CosCeil ≤ 1, CosFloor < SameTopic ≤ SameMeaning ≤ 1,
// and SemanticWeight 0 (unset) or strictly between 0 and 1.
func (c Calibration) Validate() error {
	if math.IsNaN(c.SemanticWeight) || c.SemanticWeight < 0 || c.SemanticWeight >= 1 {
		return fmt.Errorf("%w: semantic_weight %g: want 0 (the spec's 0.75) or a weight strictly between 0 and 1",
			ErrUncalibrated, c.SemanticWeight)
	}
	ok := func(x float64) bool { return !math.IsNaN(x) && x >= -1 && x <= 1 }
	if !ok(c.CosFloor) || !ok(c.CosCeil) || !ok(c.SameMeaning) || !ok(c.SameTopic) ||
		c.CosFloor >= c.CosCeil || c.SameTopic <= c.CosFloor || c.SameMeaning < c.SameTopic {
		return fmt.Errorf("%w: cos_floor %g, cos_ceil %g, same_topic %g, same_meaning %g: want -1 ≤ cos_floor < cos_ceil ≤ 1 and cos_floor < same_topic ≤ same_meaning ≤ 1",
			ErrUncalibrated, c.CosFloor, c.CosCeil, c.SameTopic, c.SameMeaning)
	}
	return nil
}

// CheckCalibrated refuses an encoder without a valid calibration, with a
// sentence a person can act on.
func CheckCalibrated(info ModelInfo) error {
	if err := info.Calibration.Validate(); err != nil {
		return fmt.Errorf("model %q cannot be used: its cosines have no calibration (%w); "+
			"add a \"calibration\" object to its manifest.json (FORMAT.md section 6.1) or install it again with `compartment setup download-model`",
			info.Name, err)
	}
	return nil
}

// staticCalibrationFormat is the only calibration file version this code
// reads. Part of the format: do not change.
const staticCalibrationFormat = 1

// StaticCalibrationFile is the calibration of a static model file as
// stored beside it (FORMAT.md section 6.2): the fitted numbers, the
// SHA-256 of the model file they belong to, and how they were fitted.
type StaticCalibrationFile struct {
	Format      int         `json:"format"`
	ModelSHA256 string      `json:"model_sha256"`
	Calibration Calibration `json:"calibration"`
	FittedOn    string      `json:"fitted_on"`
}

// ParseStaticCalibration reads a static model's calibration file and
// checks that it belongs to the model whose file hashes to modelSum.
func ParseStaticCalibration(b []byte, modelSum [32]byte) (Calibration, error) {
	var f StaticCalibrationFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Calibration{}, fmt.Errorf("%w: calibration file: %v", ErrUncalibrated, err)
	}
	if f.Format != staticCalibrationFormat {
		return Calibration{}, fmt.Errorf("%w: calibration file format %d, this build reads %d", ErrUncalibrated, f.Format, staticCalibrationFormat)
	}
	if !strings.EqualFold(f.ModelSHA256, hex.EncodeToString(modelSum[:])) {
		return Calibration{}, fmt.Errorf("%w: the calibration file is for model %s, not %s", ErrUncalibrated, f.ModelSHA256, hex.EncodeToString(modelSum[:]))
	}
	if err := f.Calibration.Validate(); err != nil {
		return Calibration{}, err
	}
	return f.Calibration, nil
}

// MarshalStaticCalibration writes the calibration file of the static
// model whose file is model.
func MarshalStaticCalibration(model []byte, c Calibration, fittedOn string) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(model)
	b, err := json.MarshalIndent(StaticCalibrationFile{Format: staticCalibrationFormat,
		ModelSHA256: hex.EncodeToString(sum[:]), Calibration: c, FittedOn: fittedOn}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
