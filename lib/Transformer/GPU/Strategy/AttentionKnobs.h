//===- AttentionKnobs.h - the strategy's knobs, listed once ------*- C++ -*-===//
//
// The knobs of tx.attention's strategy are declared once, as the TableGen
// option list TxAttentionKnobs (include/Transformer/Passes.td) that
// tx-attention-strategy and tx-attention-to-gpu share. The C++ side names
// each knob once more, here, as an X-macro list (LLVM's .def idiom): the
// chip knobs are the fields of AttentionTarget, the others the fields of
// AttentionChoices, with the pass options' C++ names (`knob`) and, for
// tx-gpu-pipeline's `attention-*` options (include/Transformer/Passes.h),
// the capitalized name (`attention##Knob`). A pass copies them with
//
//   #define TX_COPY(knob, Knob) to.knob = from.knob;
//   TX_ATTENTION_TARGET_KNOBS(TX_COPY)
//
// (inside the pass: the generated options are protected members).
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_STRATEGY_ATTENTIONKNOBS_H
#define TRANSFORMER_GPU_STRATEGY_ATTENTIONKNOBS_H

/// The chip: the fields of AttentionTarget.
#define TX_ATTENTION_TARGET_KNOBS(X)                                           \
  X(sm, Sm)                                                                    \
  X(wgmma, Wgmma)                                                              \
  X(maxSharedMemory, MaxSharedMemory)                                          \
  X(numSms, NumSms)

/// The overrides of the strategy's choices: the fields of AttentionChoices
/// that are options.
#define TX_ATTENTION_CHOICE_KNOBS(X)                                           \
  X(warps, Warps)                                                              \
  X(qTile, QTile)                                                              \
  X(kvTile, KvTile)                                                            \
  X(stages, Stages)                                                            \
  X(producerWarps, ProducerWarps)                                              \
  X(mmaRowTiles, MmaRowTiles)                                                  \
  X(tensorCores, TensorCores)                                                  \
  X(decode, Decode)                                                            \
  X(decodeMaxRows, DecodeMaxRows)                                              \
  X(kvSplits, KvSplits)                                                        \
  X(decodeTileKeys, DecodeTileKeys)                                            \
  X(decodeCluster, DecodeCluster)                                              \
  X(decodeMergeKernel, DecodeMergeKernel)

#endif // TRANSFORMER_GPU_STRATEGY_ATTENTIONKNOBS_H
