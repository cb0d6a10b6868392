package io.ttlstreams.app;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import io.ttlstreams.config.ExpiredDocument;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.RuleConfig;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.resync.Resync;
import io.ttlstreams.rules.TtlRule;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigException;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, before any connector is registered, a rule whose expired records carry the document's pre-image against a
 * MongoDB server before 6.0: {@code change.stream.full.document.before.change} does not exist there, the server
 * refuses the change stream, and the database's source connector would be FAILED, so none of its rules would schedule
 * anything. The server's version is read with {@code buildInfo} through {@value ResyncOptions#MONGODB_URI_CONFIG}; a
 * server that cannot be reached at start-up is not waited for (the processor must not depend on MongoDB to start),
 * only logged.
 */
final class PreImageServerCheck {

    private static final Logger LOG = LoggerFactory.getLogger(PreImageServerCheck.class);

    /** The first MongoDB release whose change streams serve pre-images. */
    static final int FIRST_MAJOR = 6;

    private PreImageServerCheck() {}

    /**
     * Checks {@code config}'s pre-image rules against the server at {@value ResyncOptions#MONGODB_URI_CONFIG}, when
     * there are such rules under the {@code mongodb} profile and the URI is set.
     *
     * @throws ConfigException naming the first pre-image rule's option, and the server's version, before 6.0
     */
    static void check(TtlStreamsConfig config) {
        check(config, PreImageServerCheck::serverVersion);
    }

    /** As {@link #check(TtlStreamsConfig)}, with the server's version read by {@code serverVersion}. */
    static void check(TtlStreamsConfig config, Function<TtlStreamsConfig, Optional<String>> serverVersion) {
        if (config.sourceProfile() != SourceProfile.MONGODB
                || config.mongodbUri().isEmpty()) {
            return;
        }
        Optional<TtlRule> preImageRule = config.rules().rules().stream()
                .filter(rule -> config.expiryEvents().document(rule.name()) == ExpiredDocument.PRE_IMAGE)
                .findFirst();
        if (preImageRule.isEmpty()) {
            return;
        }
        Optional<String> version = serverVersion.apply(config);
        if (version.isEmpty() || major(version.get()) >= FIRST_MAJOR) {
            return;
        }
        throw new ConfigException(
                RuleConfig.prefix(preImageRule.get().name()) + RuleConfig.EXPIRED_DOCUMENT_CONFIG,
                ExpiredDocument.PRE_IMAGE.configValue(),
                "the MongoDB server at " + ResyncOptions.MONGODB_URI_CONFIG + " is " + version.get()
                        + ", and change streams serve pre-images (fullDocumentBeforeChange) from 6.0 on: its source"
                        + " connector would fail. Use " + ExpiredDocument.NONE.configValue()
                        + ", or upgrade the server");
    }

    /** The major release of a version such as {@code 5.0.26}; a version it cannot read counts as current. */
    static int major(String version) {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException unreadable) {
            return Integer.MAX_VALUE;
        }
    }

    /** The server's {@code buildInfo.version}; empty, logged, when the server cannot be asked now. */
    private static Optional<String> serverVersion(TtlStreamsConfig config) {
        try (MongoClient client = Resync.mongoClient(config, "ttl-streams-startup")) {
            Document info = client.getDatabase("admin").runCommand(new Document("buildInfo", 1));
            return Optional.ofNullable(info.getString("version"));
        } catch (MongoException e) {
            LOG.warn(
                    "Could not read the MongoDB server's version at {} to check the pre-image rules against it: {}",
                    ResyncOptions.MONGODB_URI_CONFIG,
                    e.toString());
            return Optional.empty();
        }
    }
}
