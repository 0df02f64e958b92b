//go:build race

package wire_test

// raceDetector: under -race, sync.Pool drops items at random, so the codecs' pooled state is
// made again now and then and a scan's allocated bytes say nothing about the scan.
const raceDetector = true
