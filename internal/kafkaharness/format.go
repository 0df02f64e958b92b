package kafkaharness

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// clusterID is a Kafka cluster id: 16 random bytes, base64url without padding.
// One in 64 starts with "-", which StorageTool's argument parser takes for an
// option; Kafka's own Uuid.randomUuid draws again then, and so do we.
func clusterID() string {
	for {
		b := make([]byte, 16)
		_, _ = rand.Read(b) // never fails (crypto/rand documents it)
		if id := base64.RawURLEncoding.EncodeToString(b); !strings.HasPrefix(id, "-") {
			return id
		}
	}
}

// formatStorage writes meta.properties and the bootstrap checkpoint KRaft
// needs before the first start, with the SCRAM user in it if cred is not nil
// (SCRAM credentials live in the metadata log). Small heap and C1 only: a
// short-lived tool.
func formatStorage(ctx context.Context, libs, logOpt, dir, id string, cred *SASLCredentials) error {
	logPath := filepath.Join(dir, "format.log")
	out, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer out.Close()
	args := []string{"-Xmx128m", "-XX:TieredStopAtLevel=1", logOpt,
		"-cp", filepath.Join(libs, "*"), "kafka.tools.StorageTool", "format",
		"-t", id, "-c", filepath.Join(dir, "server.properties")}
	if cred != nil {
		args = append(args, "--add-scram", scramUser("SCRAM-SHA-256", *cred), "--add-scram", scramUser("SCRAM-SHA-512", *cred))
	}
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(logPath)
		return fmt.Errorf("formatting the KRaft storage in %s: %w\n%s", dir, err, b)
	}
	return nil
}

// scramUser is an --add-scram argument for the test user.
func scramUser(mechanism string, cred SASLCredentials) string {
	return mechanism + "=[name=" + cred.User + ",password=" + cred.Password + "]"
}
