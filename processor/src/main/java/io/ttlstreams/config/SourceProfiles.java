package io.ttlstreams.config;

import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import org.apache.kafka.common.config.ConfigException;

/**
 * The start-up checks of a source profile: a rule or option the service cannot serve fails, naming the option and the
 * service, rather than rendering a connector the service refuses or waiting for events it never sends.
 */
final class SourceProfiles {

    /** Cosmos DB's last-modification time: a system property MongoDB clients cannot read. */
    static final String COSMOS_TIMESTAMP = "_ts";

    private SourceProfiles() {}

    static void check(SourceProfile profile, ConfirmMode mode, TtlRules rules) {
        if (!profile.reportsDeletes() && mode == ConfirmMode.CHANGE_STREAM) {
            throw new ConfigException(
                    SchedulerOptions.CONFIRM_MODE_CONFIG,
                    mode.configValue(),
                    profile.service() + " reports no deletes in its change streams, so no delete would ever be"
                            + " confirmed: use read-back (" + SourceOptions.SOURCE_PROFILE_CONFIG + "="
                            + profile.configValue() + ")");
        }
        for (TtlRule rule : rules.rules()) {
            String prefix = RuleConfig.prefix(rule.name());
            if (!profile.watchesDatabases() && rule.namespace().collection() == null) {
                throw new ConfigException(
                        prefix + RuleConfig.NAMESPACE_CONFIG,
                        rule.namespace().toString(),
                        profile.service() + " watches one collection per change stream, so a rule cannot cover a"
                                + " whole database: name its collections, one rule each ("
                                + SourceOptions.SOURCE_PROFILE_CONFIG + "=" + profile.configValue() + ")");
            }
            if (profile == SourceProfile.COSMOSDB) {
                refuseCosmosTimestamp(prefix + RuleConfig.FIELD_CONFIG, rule.field(), profile);
                refuseCosmosTimestamp(prefix + RuleConfig.MODIFIED_FIELD_CONFIG, rule.modifiedField(), profile);
            }
        }
    }

    /**
     * Refuses a rule's expired records with the document's pre-image on a service whose change streams document no
     * pre-images ({@link SourceProfile#servesPreImages()}).
     */
    static void checkPreImages(SourceProfile profile, String ruleName, ExpiredDocument document) {
        if (document == ExpiredDocument.PRE_IMAGE && !profile.servesPreImages()) {
            throw new ConfigException(
                    RuleConfig.prefix(ruleName) + RuleConfig.EXPIRED_DOCUMENT_CONFIG,
                    document.configValue(),
                    profile.service() + " documents no pre-images (fullDocumentBeforeChange) in its change streams,"
                            + " so an expired record could never carry the deleted document: use "
                            + ExpiredDocument.NONE.configValue() + " (" + SourceOptions.SOURCE_PROFILE_CONFIG + "="
                            + profile.configValue() + ")");
        }
    }

    private static void refuseCosmosTimestamp(String option, String path, SourceProfile profile) {
        if (COSMOS_TIMESTAMP.equals(path)) {
            throw new ConfigException(
                    option,
                    path,
                    profile.service() + " does not show " + COSMOS_TIMESTAMP + " to MongoDB clients, so no change"
                            + " event carries it: for expiry after the last modification use mode last-modified");
        }
    }
}
