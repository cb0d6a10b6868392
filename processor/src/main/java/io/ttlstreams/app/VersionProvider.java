package io.ttlstreams.app;

import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code ttl-streams -V}: the build's version (the jar manifest's {@code Implementation-Version}, else the version
 * Maven wrote into {@code build.properties}), the Kafka Streams version it is built with, and the MongoDB Kafka connector
 * version the connector configurations are rendered and tested for.
 */
final class VersionProvider implements IVersionProvider {

    private static final String BUILD_PROPERTIES = "build.properties";

    @Override
    public String[] getVersion() {
        Properties build = BuildResources.properties(BUILD_PROPERTIES);
        String version = TtlStreamsCli.class.getPackage().getImplementationVersion();
        return new String[] {
            "ttl-streams " + (version == null ? build.getProperty("version") : version),
            "Kafka Streams " + build.getProperty("kafka.version"),
            "MongoDB Kafka connector " + build.getProperty("mongo-kafka-connect.version")
                    + " (the version connector configurations are rendered for)"
        };
    }
}
