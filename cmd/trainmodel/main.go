// Command trainmodel builds the bundled static embedding model from the
// corpus cache (scripts/model-corpus.sh) and writes the model file and its
// SHA-256 beside it. `make model` runs it through scripts/model.sh.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/embed/train"
)

// override sets the named fields of a config struct from
// "Name=value,..." (numbers only).
func override(cfg any, set string) error {
	v := reflect.ValueOf(cfg).Elem()
	for _, kv := range strings.Split(set, ",") {
		if kv == "" {
			continue
		}
		name, val, _ := strings.Cut(kv, "=")
		f := v.FieldByName(name)
		if !f.IsValid() {
			return fmt.Errorf("trainmodel: no config field %q", name)
		}
		switch f.Kind() {
		case reflect.Float64:
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return err
			}
			f.SetFloat(x)
		case reflect.Int, reflect.Int64:
			x, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return err
			}
			f.SetInt(x)
		case reflect.Uint64:
			x, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return err
			}
			f.SetUint(x)
		default:
			return fmt.Errorf("trainmodel: cannot set %s", name)
		}
	}
	return nil
}

func main() {
	cache := flag.String("cache", ".cache/model-corpus", "corpus cache directory")
	out := flag.String("out", "embed/model/static-v1.bin", "model file to write")
	basePath := flag.String("base", "", "developers: keep the corpus+SVD stage in this file and reuse it")
	set := flag.String("set", "", "developers: override config fields, e.g. SIFa=1e-4,Window=5")
	calibrateOnly := flag.Bool("calibrate-only", false, "fit and write the calibration of the existing -out model file (v1 or v2), without training")
	v2From := flag.String("v2-from", "", "train compartment-static-v2 contrastively from this v1 model file (writes -out)")
	v2Set := flag.String("v2-set", "", "developers: override ContrastiveConfig fields, e.g. Epochs=1,LR=1e-3")
	flag.Parse()
	log.SetFlags(0)
	if *calibrateOnly {
		if err := calibrateFile(*cache, *out, *v2Set); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *v2From != "" {
		if err := trainV2(*cache, *v2From, *out, *v2Set); err != nil {
			log.Fatal(err)
		}
		return
	}
	cfg := train.DefaultConfig(*cache)
	if err := override(&cfg, *set); err != nil {
		log.Fatal(err)
	}
	logf := func(f string, a ...any) { log.Printf(f, a...) }
	var data *embed.StaticModelData
	var err error
	if *basePath != "" {
		data, err = train.BuildCached(cfg, *basePath, logf)
	} else {
		data, err = train.Build(cfg, logf)
	}
	if err != nil {
		log.Fatal(err)
	}
	b, err := data.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	if err := writeModel(*out, b); err != nil {
		log.Fatal(err)
	}
	if err := calibrate(*cache, *out, b, nil); err != nil {
		log.Fatal(err)
	}
}

// trainV2 trains compartment-static-v2 from the v1 file at from, writes it
// with its SHA-256 at out, and calibrates it on the pairs held back from
// training.
func trainV2(cache, from, out, set string) error {
	_, init, err := readModel(from)
	if err != nil {
		return err
	}
	cfg := train.DefaultContrastiveConfig(cache)
	if err := override(&cfg, set); err != nil {
		return err
	}
	data, held, err := train.TrainContrastive(cfg, init, func(f string, a ...any) { log.Printf(f, a...) })
	if err != nil {
		return err
	}
	b, err := data.MarshalBinary()
	if err != nil {
		return err
	}
	if err := writeModel(out, b); err != nil {
		return err
	}
	return calibrate(cache, out, b, held)
}

// readModel reads and parses a static model file.
func readModel(path string) ([]byte, *embed.StaticModelData, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	d, err := embed.ParseStaticModel(b)
	if err != nil {
		return nil, nil, fmt.Errorf("trainmodel: %s: %w", path, err)
	}
	return b, d, nil
}

// writeModel writes the model file b at out and its SHA-256 beside it
// (out with .sha256 for its extension), and prints the sum.
func writeModel(out string, b []byte) error {
	sum := sha256.Sum256(b)
	hexSum := hex.EncodeToString(sum[:])
	if err := writeFile(out, b); err != nil {
		return err
	}
	if err := writeFile(strings.TrimSuffix(out, filepath.Ext(out))+".sha256", []byte(hexSum+"\n")); err != nil {
		return err
	}
	fmt.Printf("%s  %s (%d bytes)\n", hexSum, out, len(b))
	return nil
}

// calibrateFile refits the calibration of the model file at out. A
// compartment-static-v2 file (format version 2, with identifier units) is
// calibrated on the pairs its training held back, mined again from the
// cache with the same configuration (v2Set as given to -v2-set); a v1 file
// on WordNet.
func calibrateFile(cache, out, v2Set string) error {
	b, d, err := readModel(out)
	if err != nil {
		return err
	}
	var held []train.Pair
	if d.IDWeight > 0 {
		cfg := train.DefaultContrastiveConfig(cache)
		if err := override(&cfg, v2Set); err != nil {
			return err
		}
		if held, err = train.HeldBackPairs(cfg, func(f string, a ...any) { log.Printf(f, a...) }); err != nil {
			return err
		}
	}
	return calibrate(cache, out, b, held)
}

// calibrate fits the calibration of the model file b (written at out) from
// the corpus cache and writes it beside the model as
// <out without .bin>.calibration.json (FORMAT.md section 6.2).
func calibrate(cache, out string, b []byte, held []train.Pair) error {
	enc, err := embed.OpenStaticBytes(b, "candidate", sha256.Sum256(b), embed.Calibration{})
	if err != nil {
		return err
	}
	cal, st, err := train.FitCalibration(cache, enc, held)
	if err != nil {
		return err
	}
	q := func(xs []float64) string {
		return fmt.Sprintf("n=%d q10 %.3f q50 %.3f q90 %.3f q99 %.3f", len(xs),
			train.Quantile(xs, 0.10), train.Quantile(xs, 0.50), train.Quantile(xs, 0.90), train.Quantile(xs, 0.99))
	}
	log.Printf("calibration: unrelated %s", q(st.Unrelated))
	log.Printf("calibration: same topic %s", q(st.SameTopic))
	log.Printf("calibration: paraphrase %s", q(st.Paraphrase))
	weightPairs := held
	if weightPairs == nil {
		if weightPairs, err = train.HeldBackPairs(train.DefaultContrastiveConfig(cache), log.Printf); err != nil {
			return err
		}
	}
	weightPairs = train.WeightPairs(weightPairs)
	log.Printf("calibration: semantic weight fitted on %d question-shaped held-back pairs", len(weightPairs))
	rankAt, err := heldBackRanker(enc, weightPairs, cal)
	if err != nil {
		return err
	}
	w, curve, err := train.FitSemanticWeight(rankAt)
	if err != nil {
		return err
	}
	for _, pt := range curve {
		log.Printf("calibration: semantic weight %.2f: hit@1 %.4f MRR@10 %.4f", pt.Weight, pt.HitAt1, pt.MRR)
	}
	cal.SemanticWeight = w
	log.Printf("calibration: %+v", cal)
	material := train.CalibrationMaterial
	if held != nil {
		material = train.CalibrationMaterialHeld
	}
	file, err := embed.MarshalStaticCalibration(b, cal, material)
	if err != nil {
		return err
	}
	path := strings.TrimSuffix(out, filepath.Ext(out)) + ".calibration.json"
	return writeFile(path, file)
}

// writeFile replaces path atomically: temporary file, fsync, rename.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
