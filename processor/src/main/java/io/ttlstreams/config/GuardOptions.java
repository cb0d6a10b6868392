package io.ttlstreams.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The options of the blast-radius guard, which holds a rule's documents that come due on arrival (their deadline had
 * passed when the schedule learnt of it) once more of them arrive in a window than the limit lets through, until an
 * operator approves or rejects them. Each rule may override both settings ({@link RuleConfig}).
 */
public final class GuardOptions {

    private static final String GROUP = "Blast-radius guard";

    public static final String GUARD_MAX_DUE_ON_ARRIVAL_CONFIG = "ttl.guard.max.due.on.arrival";
    public static final String GUARD_MAX_DUE_ON_ARRIVAL_DOC = "Per rule: at most this many documents due on arrival"
            + " (their deadline had already passed when the schedule learnt of it: a shortened offset, a resync of"
            + " old data, a unit mistake) are deleted within ttl.guard.window.ms; past it, the rule's due-on-arrival"
            + " documents are held (no delete command) until `ttl-streams approve --rule NAME` releases or rejects"
            + " them, while its deadlines that come due organically keep expiring. Each task allows its share by the"
            + " number of source partitions, at least 1. 0 turns the guard off; ttl.rule.<name>.guard.max.due.on.arrival"
            + " overrides it per rule.";
    public static final int GUARD_MAX_DUE_ON_ARRIVAL_DEFAULT = 1_000;

    public static final String GUARD_WINDOW_MS_CONFIG = "ttl.guard.window.ms";
    public static final String GUARD_WINDOW_MS_DOC = "The sliding window, in milliseconds, over which"
            + " ttl.guard.max.due.on.arrival counts; ttl.rule.<name>.guard.window.ms overrides it per rule.";
    public static final long GUARD_WINDOW_MS_DEFAULT = 60_000L;

    /** The shortest window: a sliding count over less than a second is no count of a mass. */
    static final long MIN_WINDOW_MS = 1_000L;

    private GuardOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        GUARD_MAX_DUE_ON_ARRIVAL_CONFIG,
                        Type.INT,
                        GUARD_MAX_DUE_ON_ARRIVAL_DEFAULT,
                        Range.atLeast(0),
                        Importance.HIGH,
                        GUARD_MAX_DUE_ON_ARRIVAL_DOC)
                .define(
                        GUARD_WINDOW_MS_CONFIG,
                        Type.LONG,
                        GUARD_WINDOW_MS_DEFAULT,
                        Range.atLeast(MIN_WINDOW_MS),
                        Importance.MEDIUM,
                        GUARD_WINDOW_MS_DOC);
    }

    /** The global limit, which a rule's own settings override. */
    static GuardLimit global(AbstractConfig config) {
        return new GuardLimit(
                config.getInt(GUARD_MAX_DUE_ON_ARRIVAL_CONFIG),
                Duration.ofMillis(config.getLong(GUARD_WINDOW_MS_CONFIG)));
    }

    /** Each rule's limit, by rule name in the order of {@code rules}: its own settings where set, else the global ones. */
    static Map<String, GuardLimit> perRule(AbstractConfig config, List<String> rules) {
        GuardLimit global = global(config);
        Map<String, GuardLimit> limits = new LinkedHashMap<>();
        for (String rule : rules) {
            limits.put(rule, RuleConfig.guardLimit(rule, config, global));
        }
        return limits;
    }
}
