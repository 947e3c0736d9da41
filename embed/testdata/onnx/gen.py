#!/usr/bin/python3
"""Generates a BERT-architecture ONNX encoder with random weights.

The committed test fixture (tiny-bert.onnx) comes from the default settings:

    /usr/bin/python3 embed/testdata/onnx/gen.py

It is a real BERT graph (word, position and token-type embeddings, post-norm
encoder layers with multi-head self-attention and a GELU feed-forward block,
LayerNorm everywhere BERT has one) with the real 30,522-token WordPiece
vocabulary, so token ids from the fixture tokenizer index real rows. Only the
sizes are small and the weights random (fixed seed, so the file is
reproducible). The word embedding table is stored as int8 with one scale and
dequantised after the Gather, which keeps the file near 1 MB.

The same script builds a random model of bge-small-en-v1.5's exact shape for
benchmarks (never committed):

    /usr/bin/python3 embed/testdata/onnx/gen.py --preset bge-small \
        --quant dynamic --out /tmp/bge-small-random.onnx

--quant dynamic writes every encoder MatMul the way ONNX Runtime's dynamic
int8 quantisation does (DynamicQuantizeLinear + MatMulInteger), as in the
published int8 exports of bge-small.

Needs Debian's python3-onnx and python3-numpy (scripts/deps/onnx-tools.sh).
"""

import argparse
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PRESETS = {
    # The committed fixture: small enough for the repository, still a BERT.
    "tiny": dict(hidden=32, layers=2, heads=2, intermediate=128),
    # bge-small-en-v1.5 / all-MiniLM-L12 shape: 12 layers, 384 hidden.
    "bge-small": dict(hidden=384, layers=12, heads=12, intermediate=1536),
}
VOCAB = 30522
MAX_POSITIONS = 512
TYPE_VOCAB = 2
LN_EPS = 1e-12


class Graph:
    """Collects nodes and initialisers with unique names."""

    def __init__(self, rng, quant):
        self.nodes, self.inits, self.rng, self.quant, self.n = [], [], rng, quant, 0

    def name(self, hint):
        self.n += 1
        return f"{hint}_{self.n}"

    def const(self, hint, array):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, hint, shape, std):
        return self.const(hint, (self.rng.standard_normal(shape) * std).astype(np.float32))

    def op(self, op_type, inputs, hint=None, outputs=1, **attrs):
        outs = [self.name(hint or op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs[0] if outputs == 1 else outs

    def layer_norm(self, x, hidden):
        gamma = self.const("ln_gamma", (1 + 0.1 * self.rng.standard_normal(hidden)).astype(np.float32))
        beta = self.weight("ln_beta", (hidden,), 0.1)
        return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=LN_EPS)

    def dense(self, x, n_in, n_out, std):
        """x·W + b, in float or the way dynamic int8 quantisation writes it."""
        bias = self.weight("bias", (n_out,), 0.02)
        w = (self.rng.standard_normal((n_in, n_out)) * std).astype(np.float32)
        if not self.quant:
            return self.op("Add", [self.op("MatMul", [x, self.const("w", w)]), bias])
        w_scale = np.float32(np.abs(w).max() / 127.0)
        w_q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
        xq, x_scale, x_zero = self.op("DynamicQuantizeLinear", [x], outputs=3)
        acc = self.op("MatMulInteger", [xq, self.const("w_q", w_q), x_zero,
                                        self.const("w_zero", np.array(0, dtype=np.int8))])
        scale = self.op("Mul", [x_scale, self.const("w_scale", np.array(w_scale, dtype=np.float32))])
        y = self.op("Mul", [self.op("Cast", [acc], to=TensorProto.FLOAT), scale])
        return self.op("Add", [y, bias])


def embeddings(g, hidden):
    """Word (int8, dequantised after Gather) + position + token type, then LayerNorm."""
    table = g.rng.standard_normal((VOCAB, hidden)) * 0.5
    scale = np.float32(np.abs(table).max() / 127.0)
    table_q = np.clip(np.round(table / scale), -127, 127).astype(np.int8)
    words_q = g.op("Gather", [g.const("word_embeddings_q", table_q), "input_ids"], axis=0)
    words = g.op("DequantizeLinear", [words_q, g.const("word_scale", np.array(scale, dtype=np.float32)),
                                      g.const("word_zero", np.array(0, dtype=np.int8))])
    shape = g.op("Shape", ["input_ids"])
    seq_len = g.op("Slice", [shape, g.const("one", np.array([1], np.int64)),
                             g.const("two", np.array([2], np.int64))])
    positions = g.op("Slice", [g.weight("position_embeddings", (MAX_POSITIONS, hidden), 0.1),
                               g.const("zero", np.array([0], np.int64)), seq_len,
                               g.const("axis0", np.array([0], np.int64))])
    types = g.op("Gather", [g.weight("token_type_embeddings", (TYPE_VOCAB, hidden), 0.1),
                            "token_type_ids"], axis=0)
    summed = g.op("Add", [g.op("Add", [words, positions]), types])
    return g.layer_norm(summed, hidden)


def attention_bias(g):
    """(1 − mask) · −10000, shaped [B, 1, 1, T], added to the attention scores."""
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask = g.op("Unsqueeze", [mask, g.const("axes12", np.array([1, 2], np.int64))])
    inverted = g.op("Sub", [g.const("f_one", np.array(1.0, np.float32)), mask])
    return g.op("Mul", [inverted, g.const("neg", np.array(-10000.0, np.float32))])


def self_attention(g, x, bias, hidden, heads):
    head_dim = hidden // heads
    split = g.const("split_shape", np.array([0, 0, heads, head_dim], np.int64))

    def project(perm):
        y = g.dense(x, hidden, hidden, 0.2)
        return g.op("Transpose", [g.op("Reshape", [y, split])], perm=perm)

    q, k, v = project([0, 2, 1, 3]), project([0, 2, 3, 1]), project([0, 2, 1, 3])
    scores = g.op("Div", [g.op("MatMul", [q, k]),
                          g.const("sqrt_d", np.array(math.sqrt(head_dim), np.float32))])
    probs = g.op("Softmax", [g.op("Add", [scores, bias])], axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    merged = g.op("Reshape", [context, g.const("merge_shape", np.array([0, 0, hidden], np.int64))])
    return g.dense(merged, hidden, hidden, 0.2)


def gelu(g, x):
    """The exact (erf) GELU BERT uses: x · ½ · (1 + erf(x / √2))."""
    erf = g.op("Erf", [g.op("Div", [x, g.const("sqrt2", np.array(math.sqrt(2.0), np.float32))])])
    one_plus = g.op("Add", [erf, g.const("g_one", np.array(1.0, np.float32))])
    return g.op("Mul", [g.op("Mul", [x, one_plus]), g.const("half", np.array(0.5, np.float32))])


def encoder_layer(g, x, bias, p):
    hidden = p["hidden"]
    x = g.layer_norm(g.op("Add", [x, self_attention(g, x, bias, hidden, p["heads"])]), hidden)
    inner = gelu(g, g.dense(x, hidden, p["intermediate"], 0.2))
    out = g.dense(inner, p["intermediate"], hidden, 0.1)
    return g.layer_norm(g.op("Add", [x, out]), hidden)


def build(preset, seed, quant):
    p = PRESETS[preset]
    g = Graph(np.random.default_rng(seed), quant)
    x = embeddings(g, p["hidden"])
    bias = attention_bias(g)
    for _ in range(p["layers"]):
        x = encoder_layer(g, x, bias, p)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ids = lambda n: helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
    graph = helper.make_graph(
        g.nodes, f"bert-{preset}",
        [ids("input_ids"), ids("attention_mask"), ids("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       ["batch", "sequence", p["hidden"]])],
        g.inits)
    model = helper.make_model(graph, producer_name="compartment embed/testdata/onnx/gen.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="tiny")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--quant", choices=["none", "dynamic"], default="none")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = args.out or ("embed/testdata/onnx/tiny-bert.onnx" if args.preset == "tiny" else None)
    if out is None:
        ap.error("--out is required for presets other than tiny")
    onnx.save(build(args.preset, args.seed, args.quant == "dynamic"), out)
    print(out)


if __name__ == "__main__":
    main()
