package embed

import "errors"

// OpenStatic loads the bundled static embedding model, the default when no
// other model is installed.
//
// Placeholder until the bundled model lands (issue 6).
func OpenStatic() (Encoder, error) {
	return nil, errors.New("embed: the bundled static model is not built yet")
}
