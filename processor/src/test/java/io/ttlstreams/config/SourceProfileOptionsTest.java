package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.assertRejectedNaming;
import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** {@code ttl.source.profile}: the default confirmation it picks, and what each service is refused at start-up. */
class SourceProfileOptionsTest {

    private static final String URI = "mongodb://mongo:27017";
    /** As Firestore's and DocumentDB's documentation write it. */
    private static final String NO_RETRYABLE_WRITES = "mongodb://mongo:27017/?tls=true&retryWrites=false";

    @Test
    void shouldAssumeMongoDbWhenNoProfileIsSet() {
        assertThat(config().sourceProfile()).isEqualTo(SourceProfile.MONGODB);
        assertThat(config("ttl.mongodb.uri", URI).confirmMode()).isEqualTo(ConfirmMode.AUTO);
    }

    @Test
    void shouldConfirmByReadBackOnCosmosDbWhichReportsNoDeletes() {
        assertThat(config("ttl.source.profile", "cosmosdb", "ttl.mongodb.uri", URI)
                        .confirmMode())
                .isEqualTo(ConfirmMode.READ_BACK);
        assertThat(config("ttl.source.profile", "documentdb", "ttl.mongodb.uri", NO_RETRYABLE_WRITES)
                        .confirmMode())
                .isEqualTo(ConfirmMode.AUTO);
        assertThat(config("ttl.source.profile", "firestore").confirmMode()).isEqualTo(ConfirmMode.CHANGE_STREAM);
    }

    @Test
    void shouldRefuseAMongoUriWithRetryableWritesOnWhereTheServiceRefusesThem() {
        for (String profile : new String[] {"firestore", "documentdb"}) {
            for (String uri : new String[] {URI, "mongodb://mongo:27017/?retryWrites=true"}) {
                assertThatThrownBy(() -> config("ttl.source.profile", profile, "ttl.mongodb.uri", uri))
                        .isInstanceOf(ConfigException.class)
                        .hasMessageContaining("ttl.mongodb.uri must carry retryWrites=false")
                        .hasMessageContaining(SourceProfile.of(profile).service())
                        .hasMessageNotContaining("mongo:27017");
            }
            assertThat(config("ttl.source.profile", profile, "ttl.mongodb.uri", NO_RETRYABLE_WRITES)
                            .sourceProfile()
                            .refusesRetryableWrites())
                    .isTrue();
        }
        assertThat(config("ttl.mongodb.uri", URI).sourceProfile().refusesRetryableWrites())
                .as("MongoDB retries writes")
                .isFalse();
    }

    @Test
    void shouldRefuseCosmosDbWithoutAMongoUriNamingTheOptionAndTheService() {
        assertThatThrownBy(() -> config("ttl.source.profile", "cosmosdb"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.confirm.mode")
                .hasMessageContaining("ttl.mongodb.uri")
                .hasMessageContaining("Azure Cosmos DB for MongoDB");
    }

    @Test
    void shouldRefuseChangeStreamConfirmationOnCosmosDb() {
        assertThatThrownBy(() -> config(
                        "ttl.source.profile", "cosmosdb", "ttl.mongodb.uri", URI, "ttl.confirm.mode", "change-stream"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.confirm.mode")
                .hasMessageContaining("Azure Cosmos DB for MongoDB (RU) reports no deletes");
    }

    @Test
    void shouldRefuseADatabaseWideRuleWhereTheServiceWatchesCollectionsOnly() {
        for (String profile : new String[] {"cosmosdb", "azure-documentdb"}) {
            assertThatThrownBy(() -> config(
                            "ttl.source.profile",
                            profile,
                            "ttl.mongodb.uri",
                            URI,
                            "ttl.rule.sessions.namespace",
                            "app.*",
                            "ttl.source.topics",
                            "app.sessions"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("ttl.rule.sessions.namespace")
                    .hasMessageContaining(SourceProfile.of(profile).service());
        }
        assertThat(config(
                                "ttl.source.profile",
                                "documentdb",
                                "ttl.rule.sessions.namespace",
                                "app.*",
                                "ttl.source.topics",
                                "app.sessions")
                        .rules()
                        .rules())
                .hasSize(1);
    }

    @Test
    void shouldRefuseCosmosDbsSystemTimestampAsARuleField() {
        assertRejectedNaming(
                "ttl.rule.sessions.field",
                "ttl.source.profile",
                "cosmosdb",
                "ttl.mongodb.uri",
                URI,
                "ttl.rule.sessions.field",
                "_ts");
    }

    @Test
    void shouldRefuseAnUnknownProfile() {
        assertRejectedNaming("ttl.source.profile", "ttl.source.profile", "cosmos");
    }
}
