package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// readErrorAttrs are the attributes of one data source that a read error can be the fault of: the
// one that names its topics (topic, topics, name_regex), partition, group_id, fetch_timestamps. A
// zero path, where the data source has no such attribute, leaves the error on the data source as
// a whole.
type readErrorAttrs struct {
	topic, partition, group, fetchTimestamps path.Path
}

// addReadError turns a kafkaclient error into a diagnostic that says what failed, where, and what
// to do; on the data source's attribute (attrs) when the user's input is the cause. who is the
// principal the ACL advice names.
func addReadError(diags *diag.Diagnostics, err error, attrs readErrorAttrs, who principal) {
	var (
		topicNotFound *kafkaclient.TopicNotFoundError
		topicsHidden  *kafkaclient.TopicsHiddenError
		outOfRange    *kafkaclient.PartitionOutOfRangeError
		unreachable   *kafkaclient.UnreachableError
		unresolvable  *kafkaclient.UnresolvableBrokerError
		broker        *kafkaclient.BrokerError
		timedOut      *kafkaclient.TimeoutError
		groupMissing  *kafkaclient.GroupNotFoundError
		unsupported   *kafkaclient.UnsupportedError
		refused       *kafkaclient.RefusedError
	)
	switch {
	case addAuthError(diags, err): // TLS and SASL failures: provider_auth_diagnostics.go
	case errors.Is(err, kafkaclient.ErrGroupsHidden):
		diags.AddError("Not authorized to list every consumer group", err.Error()+". Grant "+who.String()+
			" the ACL operation DESCRIBE on the cluster ("+who.grant("Describe", "--cluster")+"), or read a known "+
			"group with kafka_consumer_group_offsets.")
	case errors.As(err, &unsupported):
		diags.AddError("Unsupported by this broker", err.Error()+". Upgrade the brokers to the release named, or "+
			"leave out what needs it (on Kafka 4.0, share groups: a group_id_regex that does not match them).")
	case errors.As(err, &refused):
		diags.AddError("Refused by this broker", err.Error()+". Neither an ACL nor a longer timeout changes that: "+
			"leave out what needs the request (fetch_last_write_time, fetch_timestamps, or this data source), or read "+
			"through brokers that serve it (the Kafka versions guide says what was tested against which service).")
	case errors.As(err, &groupMissing):
		addErrorAt(diags, attrs.group, "Consumer group not found", err.Error()+"."+didYouMean(groupMissing.Suggestions)+
			" Check the group id (it is case-sensitive) and that bootstrap_servers points at the right cluster.")
	case errors.As(err, &topicsHidden):
		addErrorAt(diags, attrs.topic, "Topics hidden from the provider's principal", err.Error()+
			": the read would show the selection without them, as if they held nothing. Grant "+who.String()+
			" DESCRIBE on those topics ("+who.grant("Describe", "--topic NAME")+" for each), or narrow name_regex.")
	case errors.As(err, &topicNotFound):
		addErrorAt(diags, attrs.topic, "Topic not found",
			err.Error()+"."+didYouMean(topicNotFound.Suggestions)+" Check the name (topic names are case-sensitive) "+
				"and that bootstrap_servers points at the right cluster. This provider never creates topics.")
	case errors.As(err, &outOfRange):
		addErrorAt(diags, attrs.partition, "Partition out of range", err.Error()+".")
	case errors.As(err, &unreachable):
		diags.AddError("Cannot reach the Kafka cluster", err.Error()+". "+unreachableAdvice(unreachable))
	case errors.As(err, &unresolvable):
		diags.AddError("Broker address does not resolve", err.Error()+". "+unresolvableAdvice)
	case errors.As(err, &timedOut): // before BrokerError: it wraps the retriable answer that outlasted it
		diags.AddError("Kafka read timed out",
			err.Error()+". The cluster answered earlier, but this kept failing until the timeout ran out: raise "+
				timeoutName(timedOut.PerRead)+", or check the cluster's health (brokers down, leader elections, "+
				"offline partitions).")
	case errors.As(err, &broker) && broker.Op == kafkaclient.FetchOp && broker.Code == kafkaclient.TopicAuthorizationFailed:
		addErrorAt(diags, attrs.fetchTimestamps, "Not authorized to read records", fmt.Sprintf(
			"%s. Reading the next record's timestamp (fetch_timestamps, or a wait block's max_time_lag) is a Fetch, "+
				"which needs the ACL operation READ on topic %q, where every other read needs only DESCRIBE: grant "+
				"%s READ on the topic (%s), or set fetch_timestamps = false (and drop max_time_lag) "+
				"to read offsets only.", err, broker.Topic, who, who.grant("Read", "--topic "+broker.Topic)))
	case errors.As(err, &broker):
		diags.AddError("Kafka broker refused the request", err.Error()+"."+brokerAdvice(broker, who))
	default:
		diags.AddError("Kafka read failed", err.Error()+".")
	}
}

// addErrorAt adds an error on attr, or on the data source as a whole where attr is the zero path.
func addErrorAt(diags *diag.Diagnostics, attr path.Path, summary, detail string) {
	if len(attr.Steps()) == 0 {
		diags.AddError(summary, detail)
		return
	}
	diags.AddAttributeError(attr, summary, detail)
}

// brokerAdvice says what to do about the broker answers a user can fix; who is the principal to
// grant an ACL.
func brokerAdvice(e *kafkaclient.BrokerError, who principal) string {
	switch e.Code {
	case kafkaclient.TopicAuthorizationFailed:
		return fmt.Sprintf(" %s needs the ACL operation DESCRIBE on topic %q: Metadata and ListOffsets require it (%s).",
			who.Sentence(), e.Topic, who.grant("Describe", "--topic "+e.Topic))
	case kafkaclient.GroupAuthorizationFailed:
		return fmt.Sprintf(" %s needs the ACL operation DESCRIBE on group %q (DescribeGroups, OffsetFetch, ListGroups) "+
			"and DESCRIBE on its topics (%s).", who.Sentence(), e.Group, who.grant("Describe", "--group "+e.Group))
	}
	return ""
}

// didYouMean is the sentence that suggests the names a read found close to the one asked for
// (kafkaclient's suggest.go), "" where none is; with a leading space.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return " Did you mean " + strings.Join(quoted, " or ") + "?"
}

// unresolvableAdvice says why a broker can be given a name that does not resolve, and the ways out.
const unresolvableAdvice = "Kafka gives clients the address each broker advertises for the listener they " +
	"connected to (the broker's advertised.listeners), and the machine where Terraform runs cannot resolve this " +
	"one: a broker behind Docker, Kubernetes or a VPN often advertises a name that only its own network knows. " +
	"Point bootstrap_servers at the listener meant for clients outside that network, set the broker's " +
	"advertised.listeners to a host reachable from here, or make the name resolve here (DNS, or the hosts file)."

// unreachableAdvice says what to check when no bootstrap server answered; raising the timeout
// helps only where the time ran out.
func unreachableAdvice(e *kafkaclient.UnreachableError) string {
	advice := "Check bootstrap_servers and that each address is a running broker's listener of the kind the " +
		"tls and sasl blocks say (plaintext without a tls block)."
	if e.TimedOut {
		advice += " On a slow network, raise " + timeoutName(e.PerRead) + "."
	}
	return advice
}

// warnTopicsUnseen warns, where unseen says why (kafkaclient: the brokers did not say which topics
// they hold), that a selection by name_regex may miss topics hidden from the principal, and so
// may the values named.
func warnTopicsUnseen(diags *diag.Diagnostics, unseen, values string) {
	if unseen == "" {
		return
	}
	advice := " No ACL makes these brokers say which topics they hold: name the topics instead (topics of " +
		"kafka_topic_producers, kafka_topic_offsets per topic), which Kafka refuses with TOPIC_AUTHORIZATION_FAILED " +
		"where one is hidden."
	if kafkaclient.DescribeClusterHelps(unseen) {
		advice = " Grant the principal DESCRIBE on the cluster, so that the read can ask each broker which topics " +
			"it holds (DescribeLogDirs)."
	}
	diags.AddAttributeWarning(path.Root("name_regex"), "Cannot tell whether topics are hidden",
		"Cannot tell whether the provider's principal may DESCRIBE every topic name_regex matches ("+unseen+
			"), and Kafka leaves the topics it may not out of the read: "+values+" may miss some."+advice)
}
