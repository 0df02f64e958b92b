package acctest

import (
	"fmt"
	"runtime"
	"time"
	"unicode"
)

// Helpers shared by the fuzz targets of kafkaclient and kafkaclient/wire (tools/test/fuzz.sh runs
// each for a bounded time in CI).

// HangLimit: one fuzz input that runs this long is a hang. Go's fuzzer does not detect hangs;
// NoHang turns one into a crash, for which the fuzzer saves the input under testdata/fuzz.
const HangLimit = 10 * time.Second

// NoHang panics (killing the fuzz worker, which saves the input) unless the returned stop is
// called within HangLimit.
func NoHang(what string) (stop func() bool) {
	return time.AfterFunc(HangLimit, func() { panic(fmt.Sprintf("%s: one input ran for more than %s", what, HangLimit)) }).Stop
}

// AllocatedBy runs do and says how many bytes it allocated (all goroutines; the fuzz worker runs
// one input at a time).
func AllocatedBy(do func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	do()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// AllocLimit is what decoding n bytes from a peer may allocate: a small multiple of n, plus room
// for buffers of fixed size and the decoder's caches.
func AllocLimit(n int) uint64 { return uint64(32*n) + 2<<20 }

// ControlRune returns the first control character in s (a line break, an escape sequence), or
// -1: text from a peer must not reach an error message raw, where it could forge lines.
func ControlRune(s string) rune {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return r
		}
	}
	return -1
}
