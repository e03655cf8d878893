// Package lookalike flags names a reviewer could mistake for other names:
// text not in Unicode NFC form (NFC "café" and NFD "café" print alike),
// one name mixing scripts (Cyrillic "е" inside Latin "echo"), and names whose
// confusable skeleton is a different plain-ASCII name. It never changes a
// name: the lock stores the raw bytes; this only explains them.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package lookalike
