package embed

import (
	"crypto/sha256"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCalibrationValidate(t *testing.T) {
	if err := SpecCalibration.Validate(); err != nil {
		t.Fatalf("spec calibration: %v", err)
	}
	for _, c := range []Calibration{
		{},
		{CosFloor: 0.85, CosCeil: 0.25, SameMeaning: 0.97, SameTopic: 0.8},
		{CosFloor: 0.25, CosCeil: 0.85, SameMeaning: 0.7, SameTopic: 0.8},
		{CosFloor: 0.25, CosCeil: 0.85, SameMeaning: 0.97, SameTopic: 0.2},
		{CosFloor: 0.25, CosCeil: 1.5, SameMeaning: 0.97, SameTopic: 0.8},
		{CosFloor: 0.25, CosCeil: 0.85, SameMeaning: 0.97, SameTopic: 0.8, SemanticWeight: 1},
		{CosFloor: 0.25, CosCeil: 0.85, SameMeaning: 0.97, SameTopic: 0.8, SemanticWeight: -0.1},
		{CosFloor: 0.25, CosCeil: 0.85, SameMeaning: 0.97, SameTopic: 0.8, SemanticWeight: math.NaN()},
	} {
		if err := c.Validate(); !errors.Is(err, ErrUncalibrated) {
			t.Errorf("%+v: %v, want ErrUncalibrated", c, err)
		}
	}
	weighted := SpecCalibration
	weighted.SemanticWeight = 0.4
	if err := weighted.Validate(); err != nil {
		t.Fatalf("a semantic weight of 0.4: %v", err)
	}
	err := CheckCalibrated(ModelInfo{Name: "x"})
	if !errors.Is(err, ErrUncalibrated) || !strings.Contains(err.Error(), "calibration") || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("uncalibrated model: %v", err)
	}
}

// The static model's calibration file is bound to the model file: another
// model's calibration, or a corrupted one, is refused.
func TestStaticCalibrationFileBinding(t *testing.T) {
	model := []byte("not really a model")
	b, err := MarshalStaticCalibration(model, SpecCalibration, "test")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseStaticCalibration(b, sha256.Sum256(model))
	if err != nil || got != SpecCalibration {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if strings.Contains(string(b), "semantic_weight") {
		t.Fatalf("the spec's weight is written as an absent field, got %s", b)
	}
	weighted := SpecCalibration
	weighted.SemanticWeight = 0.4
	wb, err := MarshalStaticCalibration(model, weighted, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseStaticCalibration(wb, sha256.Sum256(model)); err != nil || got != weighted {
		t.Fatalf("round trip with a weight: %+v, %v", got, err)
	}
	if _, err := ParseStaticCalibration(b, sha256.Sum256([]byte("another model"))); !errors.Is(err, ErrUncalibrated) {
		t.Fatalf("another model's calibration: %v, want refused", err)
	}
	bad := strings.Replace(string(b), `"format": 1`, `"format": 2`, 1)
	if _, err := ParseStaticCalibration([]byte(bad), sha256.Sum256(model)); !errors.Is(err, ErrUncalibrated) {
		t.Fatalf("format 2: %v, want refused", err)
	}
	if _, err := MarshalStaticCalibration(model, Calibration{}, "test"); err == nil {
		t.Fatal("an invalid calibration must not be written")
	}
}

// A manifest without a calibration is refused, saying so.
func TestManifestWithoutCalibrationRefused(t *testing.T) {
	src, err := os.ReadFile("testdata/onnx/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), `,
  "calibration"`)
	if i < 0 {
		t.Fatal("fixture manifest has no calibration")
	}
	stripped := string(src[:i]) + "\n}\n"
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, []byte(stripped), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadManifest(path)
	if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "calibration") {
		t.Fatalf("manifest without calibration: %v", err)
	}
	if m, ok := CatalogueModel("bge-small"); !ok || m.Calibration == nil || *m.Calibration != SpecCalibration {
		t.Fatalf("bge-small in the catalogue: %+v, want the spec's calibration", m.Calibration)
	}
}
