package io.ttlstreams.config;

import io.ttlstreams.rules.TtlRules;
import java.util.List;
import org.apache.kafka.common.config.ConfigException;

/**
 * The checks and warnings that span several option groups, which no group can make on its own: what {@link
 * TtlStreamsConfig} refuses or warns about once every group has read its options.
 */
final class ConfigChecks {

    private ConfigChecks() {}

    /** A mode that reads needs a deployment to read: failing beats silently retrying blind. */
    static void readBackHasMongo(ConfirmMode mode, boolean mongodbConfigured, SourceProfile profile) {
        if (mode.reads() && !mongodbConfigured) {
            throw new ConfigException(
                    SchedulerOptions.CONFIRM_MODE_CONFIG,
                    mode.configValue(),
                    "Confirmation by read-back reads documents from " + ResyncOptions.MONGODB_URI_CONFIG
                            + ", which is not set: set it"
                            + (profile.reportsDeletes()
                                    ? ", or set this option to " + ConfirmMode.CHANGE_STREAM.configValue()
                                    : " (" + profile.service() + " reports no deletes, so only a read"
                                            + " confirms one; " + SourceOptions.SOURCE_PROFILE_CONFIG + "="
                                            + profile.configValue() + ")"));
        }
    }

    /** A warning for each two rules reading the same field of the same namespace, where one never decides. */
    static List<String> sameFieldWarnings(TtlRules rules) {
        return rules.sameFieldPairs().stream()
                .map(pair ->
                        "Rules " + pair.get(0).name() + " and " + pair.get(1).name()
                                + " both read field " + pair.get(0).field() + " of "
                                + pair.get(0).namespace()
                                + ": one of them never decides a deadline; merge them, or tell them apart with "
                                + RuleConfig.PARTIAL_FILTER_CONFIG)
                .toList();
    }
}
