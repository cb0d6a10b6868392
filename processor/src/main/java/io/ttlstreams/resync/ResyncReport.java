package io.ttlstreams.resync;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.ResyncPlan.ResyncTarget;
import io.ttlstreams.rules.Deadlines;
import io.ttlstreams.rules.ExpiryDecision;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one resync did, per namespace and rule: documents read and published, and what the rules make of them as read
 * (which the processor may still refine: it keeps a later last-modified deadline it already has, and a command
 * already on its way).
 */
public final class ResyncReport {

    private final boolean dryRun;
    private final Map<Namespace, NamespaceResult> namespaces = new LinkedHashMap<>();
    private final Map<Namespace, String> skipped = new LinkedHashMap<>();
    private final Set<ReadStamp.Source> stampSources = EnumSet.noneOf(ReadStamp.Source.class);

    ResyncReport(boolean dryRun) {
        this.dryRun = dryRun;
    }

    /** The namespaces read, in order. */
    public Map<Namespace, NamespaceResult> namespaces() {
        return Collections.unmodifiableMap(namespaces);
    }

    /** The namespaces left out, with the reason. */
    public Map<Namespace, String> skipped() {
        return Collections.unmodifiableMap(skipped);
    }

    /** Documents read, over all namespaces. */
    public long documentsRead() {
        return namespaces.values().stream().mapToLong(NamespaceResult::read).sum();
    }

    /** Resync events published (and acknowledged), over all namespaces. */
    public long eventsPublished() {
        return namespaces.values().stream()
                .mapToLong(NamespaceResult::published)
                .sum();
    }

    /** The rules' outcomes over all namespaces, by rule name. */
    public Map<String, RuleTally> byRule() {
        Map<String, RuleTally> total = new TreeMap<>();
        namespaces
                .values()
                .forEach(result -> result.rules.forEach((rule, tally) ->
                        total.computeIfAbsent(rule, name -> new RuleTally()).add(tally)));
        return total;
    }

    NamespaceResult started(ResyncTarget target) {
        NamespaceResult result = new NamespaceResult(target.topic());
        namespaces.put(target.namespace(), result);
        return result;
    }

    void skipped(Namespace namespace, String reason) {
        skipped.put(namespace, reason);
    }

    void stamped(ReadStamp stamp) {
        stampSources.add(stamp.source());
    }

    /** The summary the command line prints: a line per namespace and per rule in it. */
    public String summary() {
        StringBuilder text =
                new StringBuilder(dryRun ? "Resync summary (dry run: nothing published):\n" : "Resync summary:\n");
        namespaces.forEach((namespace, result) -> {
            text.append("  ").append(namespace).append(": ").append(result.read).append(" documents read, ");
            if (dryRun) {
                text.append("none published (topic ").append(result.topic).append(")\n");
            } else {
                text.append(result.published)
                        .append(" resync events published to topic ")
                        .append(result.topic)
                        .append('\n');
            }
            if (result.resumed > 0) {
                text.append("    cursor lost ")
                        .append(result.resumed == 1 ? "once" : result.resumed + " times")
                        .append(", the read resumed after the last _id it had read\n");
            }
            appendRules(text, result.rules);
            if (result.neverExpiring > 0) {
                text.append("    no rule expires ")
                        .append(result.neverExpiring)
                        .append(result.neverExpiring == 1 ? " document" : " documents")
                        .append(": ")
                        .append(String.join(
                                "; ",
                                result.neverReasons.entrySet().stream()
                                        .map(reason -> reason.getValue() + " × " + reason.getKey())
                                        .toList()))
                        .append('\n');
            }
        });
        skipped.forEach((namespace, reason) -> text.append("  ")
                .append(namespace)
                .append(": skipped, ")
                .append(reason)
                .append('\n'));
        if (namespaces.size() > 1) {
            text.append("  all ")
                    .append(namespaces.size())
                    .append(" namespaces: ")
                    .append(documentsRead())
                    .append(" documents read\n");
            appendRules(text, byRule());
        }
        stampSources.forEach(source ->
                text.append("Stamped with ").append(source.description()).append(".\n"));
        return text.toString();
    }

    /** A line per rule of {@code rules}, indented under its namespace's line. */
    private static void appendRules(StringBuilder text, Map<String, RuleTally> rules) {
        rules.forEach((rule, tally) -> text.append("    rule " + rule + ": " + tally + "\n"));
    }

    /** One line for a log: documents read and published, per rule scheduled and already due. */
    public String oneLine() {
        StringBuilder line = new StringBuilder()
                .append(documentsRead())
                .append(" documents read in ")
                .append(namespaces.size())
                .append(" namespaces, ")
                .append(eventsPublished())
                .append(" resync events published");
        byRule().forEach((rule, tally) -> line.append("; rule ")
                .append(rule)
                .append(": ")
                .append(tally.count())
                .append(" to schedule, ")
                .append(tally.alreadyDue)
                .append(" already due"));
        if (!skipped.isEmpty()) {
            line.append("; skipped ").append(skipped.keySet());
        }
        return line.toString();
    }

    /** What one namespace's resync read and published. */
    public static final class NamespaceResult {

        private final String topic;
        private final Map<String, RuleTally> rules = new TreeMap<>();
        private long read;
        private long published;
        private long resumed;
        private long neverExpiring;
        /** Why no rule expires them, with how many documents each; at most {@value #MAX_REASONS} reasons. */
        private final Map<String, Long> neverReasons = new java.util.LinkedHashMap<>();

        private static final int MAX_REASONS = 5;
        private static final String OTHER_REASONS = "other reasons";

        private NamespaceResult(String topic) {
            this.topic = topic;
        }

        /** The source topic the events went to. */
        public String topic() {
            return topic;
        }

        /** Documents read. */
        public long read() {
            return read;
        }

        /** Resync events published and acknowledged. */
        public long published() {
            return published;
        }

        /** How often the read lost its cursor and resumed after the last {@code _id} it had read. */
        public long resumed() {
            return resumed;
        }

        /** The rules' outcomes, by the name of the rule whose deadline won. */
        public Map<String, RuleTally> rules() {
            return Collections.unmodifiableMap(rules);
        }

        void read(ExpiryDecision decision, Instant readTime) {
            read++;
            if (decision.expires()) {
                rules.computeIfAbsent(decision.rule(), name -> new RuleTally()).add(decision.deadline(), readTime);
            } else {
                neverExpiring++;
                // Bounded: reasons may quote values, and a summary lists a few kinds, not one per document.
                String reason = neverReasons.containsKey(decision.reason()) || neverReasons.size() < MAX_REASONS
                        ? decision.reason()
                        : OTHER_REASONS;
                neverReasons.merge(reason, 1L, Long::sum);
            }
        }

        void published(long events) {
            published += events;
        }

        void cursorLost() {
            resumed++;
        }
    }

    /** How many documents a rule schedules, their first and last deadline and how many are due already. */
    public static final class RuleTally {

        /** The deadlines, in epoch milliseconds. */
        private final LongSummaryStatistics deadlines = new LongSummaryStatistics();

        private long alreadyDue;

        /** Documents the rule schedules. */
        public long count() {
            return deadlines.getCount();
        }

        /** Of those, documents whose deadline had passed when they were read: due at once, subject to the throttle. */
        public long alreadyDue() {
            return alreadyDue;
        }

        /** The earliest deadline; null when the count is 0. */
        public Instant first() {
            return count() == 0 ? null : Instant.ofEpochMilli(deadlines.getMin());
        }

        /** The latest deadline; null when the count is 0. */
        public Instant last() {
            return count() == 0 ? null : Instant.ofEpochMilli(deadlines.getMax());
        }

        private void add(Instant deadline, Instant readTime) {
            deadlines.accept(deadline.toEpochMilli());
            if (!deadline.isAfter(readTime)) {
                alreadyDue++;
            }
        }

        private void add(RuleTally other) {
            deadlines.combine(other.deadlines);
            alreadyDue += other.alreadyDue;
        }

        @Override
        public String toString() {
            return count() == 0
                    ? "0 to schedule"
                    : count() + " to schedule, deadlines " + Deadlines.format(first()) + " to "
                            + Deadlines.format(last()) + ", " + alreadyDue + " already due";
        }
    }
}
