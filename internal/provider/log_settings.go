package provider

import (
	"path"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// Terraform and OpenTofu start a provider with their own environment, read its logs from its
// standard error (JSON lines, over go-plugin) and show them only when TF_LOG, TF_LOG_PROVIDER or
// TF_LOG_PATH asks (TF_LOG_CORE: their own lines only). Left alone, the plugin SDK logs every
// request at TRACE all the same, which Terraform then parses and drops: half of a large plan's
// time. Where nothing in the environment asks for logs, QuietLogs turns the SDK's and this
// provider's loggers off; where anything does, it changes nothing, so TF_LOG=TRACE shows every
// line as before.

// logRequests are the prefixes of the variables that ask Terraform, OpenTofu or the plugin SDK
// (its test sink included) for logs.
var logRequests = []string{"TF_LOG", "TF_ACC_LOG", "TOFU_LOG"}

// QuietLogs returns the variables to set, before the provider serves, so that it logs nothing
// when environ (os.Environ's form) asks for no logs; nil when it asks for any.
func QuietLogs(environ []string) map[string]string {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		for _, prefix := range logRequests {
			if strings.HasPrefix(name, prefix) && value != "" {
				return nil
			}
		}
	}
	return map[string]string{
		"TF_LOG_SDK":           "OFF", // terraform-plugin-go's root SDK logger
		"TF_LOG_SDK_PROTO":     "OFF", // its protocol subsystem: a line per request and more
		"TF_LOG_SDK_FRAMEWORK": "OFF", // terraform-plugin-framework's subsystem
		providerLogVariable:    "OFF", // this provider's own tflog lines
		kafkaLogVariable:       "OFF", // its kafka subsystem (read_log.go); OFF too, so no read watches its requests
	}
}

// providerLogVariable sets the level of this provider's own logger: terraform-plugin-go names it
// after the provider type of Address, upper case, "-" as "_" (its ProviderLoggerName). Terraform's
// TF_LOG_PROVIDER filters what Terraform shows, not what the provider writes.
var providerLogVariable = "TF_LOG_PROVIDER_" + strings.ToUpper(strings.ReplaceAll(path.Base(Address), "-", "_"))

// kafkaSubsystem is the tflog subsystem of the wire-level lines of a read (read_log.go).
const kafkaSubsystem = "kafka"

// kafkaLogVariable sets the level of the kafka subsystem. tflog.WithLevelFromEnv names it: the
// provider's variable, "_", the subsystem's name, upper case. Unset, the subsystem logs at the
// provider's level.
var kafkaLogVariable = providerLogVariable + "_" + strings.ToUpper(kafkaSubsystem)

// readLogging says what the logs of a read can show, from the variables that set the levels of
// the provider's logger and of its kafka subsystem. A level no variable sets is TRACE: the SDK
// then writes every line, and Terraform shows what TF_LOG asks.
type readLogging struct {
	observe bool // the summary (DEBUG) or the subsystem's DEBUG lines can show: watch each read
	trace   bool // the subsystem's TRACE lines can show: a line per request
}

// readLoggingFrom reads the two levels through getenv (os.Getenv).
func readLoggingFrom(getenv func(string) string) readLogging {
	provider := levelOr(getenv(providerLogVariable), hclog.Trace)
	kafka := levelOr(getenv(kafkaLogVariable), provider)
	return readLogging{observe: provider <= hclog.Debug || kafka <= hclog.Debug, trace: kafka <= hclog.Trace}
}

// levelOr is the level value names, as tflog reads it; unset when it names none.
func levelOr(value string, unset hclog.Level) hclog.Level {
	if l := hclog.LevelFromString(value); l != hclog.NoLevel {
		return l
	}
	return unset
}
