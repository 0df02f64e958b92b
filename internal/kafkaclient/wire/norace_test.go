//go:build !race

package wire_test

const raceDetector = false // see race_test.go
