package embed

import "fmt"

// DialDaemon returns an encoder for opts served by the daemon on socket,
// starting one there when none runs (through [DaemonArgv]). Unlike [Open]
// it never keeps the model in this process, the static model included:
// it is for measuring the daemon itself (`compartment bench`). Should the
// daemon go away later, the encoder still falls back to the model in this
// process, as every daemon client does.
func DialDaemon(socket string, opts LoadOptions) (Encoder, error) {
	ref, m, err := resolveModel(opts)
	if err != nil {
		return nil, err
	}
	c := &daemonClient{socket: socket, ref: ref, manifest: m, runtimeLib: opts.RuntimeLib}
	conn, hello, err := c.connect()
	if err != nil {
		return nil, fmt.Errorf("embed: daemon on %s: %w", socket, err)
	}
	c.info, _ = hello.Info.info()
	c.pid = hello.PID
	c.idle = append(c.idle, conn)
	return c, nil
}
