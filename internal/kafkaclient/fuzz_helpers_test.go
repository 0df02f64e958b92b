package kafkaclient

import (
	"fmt"
	"runtime"
	"time"
	"unicode"
)

// Helpers shared by the fuzz targets (tools/fuzz.sh runs each for a bounded time in CI).

// hangLimit: one fuzz input that runs this long is a hang. Go's fuzzer does not detect hangs;
// noHang turns one into a crash, for which the fuzzer saves the input under testdata/fuzz.
const hangLimit = 10 * time.Second

// noHang panics (killing the fuzz worker, which saves the input) unless the returned stop is
// called within hangLimit.
func noHang(what string) (stop func() bool) {
	return time.AfterFunc(hangLimit, func() { panic(fmt.Sprintf("%s: one input ran for more than %s", what, hangLimit)) }).Stop
}

// allocatedBy runs do and says how many bytes it allocated (all goroutines; the fuzz worker runs
// one input at a time).
func allocatedBy(do func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	do()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocLimit is what decoding n bytes from a peer may allocate: a small multiple of n, plus room
// for buffers of fixed size and the decoder's caches.
func allocLimit(n int) uint64 { return uint64(32*n) + 2<<20 }

// controlRune returns the first control character in s (a line break, an escape sequence), or
// -1: text from a peer must not reach an error message raw, where it could forge lines.
func controlRune(s string) rune {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return r
		}
	}
	return -1
}
