package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import io.ttlstreams.embedded.EmbeddedMongo;
import java.util.List;
import java.util.function.Consumer;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The MongoDB release the stand-in plays: what it reports, and the 6.0 features a 5.0 server refuses. */
class ServerVersionTest {

    /** A stand-in playing {@code version}, and the database "app" of a client on it. */
    private static void on(ServerVersion version, Consumer<MongoDatabase> test) {
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0, 200, StandInSettings.DEFAULTS.withVersion(version));
                MongoClient client = MongoClients.create(mongo.connectionString())) {
            admin = client.getDatabase("admin");
            test.accept(client.getDatabase("app"));
        }
    }

    private static MongoDatabase admin;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"5.0, 13", "6.0, 17", "7.0, 21", "8.0, 25"})
    void shouldReportTheReleaseAndItsWireVersionWhenPlayingIt(String release, int wireVersion) {
        on(ServerVersion.of(release), app -> {
            Document buildInfo = app.runCommand(new Document("buildInfo", 1));
            assertThat(buildInfo.getString("version")).isEqualTo(release + ".0");
            assertThat(buildInfo.getList("versionArray", Integer.class))
                    .containsExactly(Integer.parseInt(release.substring(0, 1)), 0, 0, 0);
            assertThat(app.runCommand(new Document("hello", 1)).getInteger("maxWireVersion"))
                    .isEqualTo(wireVersion);
        });
    }

    @Test
    void shouldRefusePreImagesAndExpandedEventsInAChangeStreamWhenPlaying50() {
        on(ServerVersion.V5_0, app -> {
            assertThatThrownBy(() -> app.getCollection("docs")
                            .watch()
                            .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE)
                            .cursor())
                    .isInstanceOf(MongoCommandException.class)
                    .hasMessageContaining("BSON field '$changeStream.fullDocumentBeforeChange' is an unknown field.")
                    .satisfies(e ->
                            assertThat(((MongoCommandException) e).getCode()).isEqualTo(40415));
            assertThatThrownBy(() -> app.runCommand(new Document("aggregate", "docs")
                            .append(
                                    "pipeline",
                                    List.of(new Document("$changeStream", new Document("showExpandedEvents", true))))
                            .append("cursor", new Document())))
                    .satisfies(e ->
                            assertThat(((MongoCommandException) e).getCode()).isEqualTo(40415));
            // What 5.0 has still works.
            app.getCollection("docs").watch().cursor().close();
        });
    }

    @Test
    void shouldRefuseCollectionPreAndPostImagesWhenPlaying50() {
        on(ServerVersion.V5_0, app -> {
            assertThatThrownBy(() -> app.createCollection(
                            "docs",
                            new CreateCollectionOptions()
                                    .changeStreamPreAndPostImagesOptions(
                                            new ChangeStreamPreAndPostImagesOptions(true))))
                    .satisfies(e ->
                            assertThat(((MongoCommandException) e).getCode()).isEqualTo(40415));
            app.createCollection("docs");
            assertThatThrownBy(() -> app.runCommand(new Document("collMod", "docs")
                            .append("changeStreamPreAndPostImages", new Document("enabled", true))))
                    .hasMessageContaining("unknown option to collMod: changeStreamPreAndPostImages")
                    .satisfies(e ->
                            assertThat(((MongoCommandException) e).getCode()).isEqualTo(72));
            assertThatThrownBy(() -> admin.runCommand(new Document("getClusterParameter", "changeStreamOptions")))
                    .satisfies(e ->
                            assertThat(((MongoCommandException) e).getCode()).isEqualTo(59));
        });
    }

    @Test
    void shouldOpenAStreamWithPreImagesWhenPlaying60() {
        on(ServerVersion.V6_0, app -> {
            app.createCollection(
                    "docs",
                    new CreateCollectionOptions()
                            .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
            app.getCollection("docs")
                    .watch()
                    .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE)
                    .cursor()
                    .close();
        });
    }
}
