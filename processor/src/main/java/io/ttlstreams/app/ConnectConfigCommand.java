package io.ttlstreams.app;

import io.ttlstreams.connect.ConnectorConfigs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams connect-config}: renders the MongoDB source and sink connector configurations for a processor
 * configuration, so that the connectors and the processor agree on namespaces, fields and topics.
 */
@Command(
        name = "connect-config",
        mixinStandardHelpOptions = true,
        description = {
            "Render the MongoDB source and sink connector configurations (Kafka Connect REST format)"
                    + " for a processor configuration.",
            "Prints a JSON array of {\"name\": ..., \"config\": {...}}, or writes one file per connector with --out."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:the configurations were rendered",
            "1:the output directory could not be written",
            "2:invalid configuration or arguments"
        })
final class ConnectConfigCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigSource config;

    // picocli expands ${...} in defaults; "$$" keeps the config-provider reference literal.
    @Option(
            names = "--mongodb-uri",
            paramLabel = "URI",
            defaultValue = "$" + ConnectorConfigs.DEFAULT_MONGODB_URI,
            description = {
                "connection.uri of both connectors (default: $${file:/secrets/mongo.properties:uri}, a"
                        + " Connect config-provider reference, so that no credentials end up in the connector configuration)."
            })
    private String mongodbUri;

    @Option(
            names = "--copy-existing",
            description = "Publish the existing documents of the rules' namespaces first (startup.mode=copy_existing),"
                    + " for a first deployment on live data.")
    private boolean copyExisting;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Write one <connector>.json per connector into DIR instead of printing.")
    private Path out;

    @Override
    public Integer call() {
        ConnectorConfigs connectors = ConnectorConfigs.render(config.load(), mongodbUri, copyExisting);
        if (out == null) {
            spec.commandLine().getOut().print(connectors.toJson());
            spec.commandLine().getOut().flush();
            return 0;
        }
        try {
            for (Path file : connectors.writeTo(out)) {
                spec.commandLine().getOut().println(file);
            }
            return 0;
        } catch (IOException e) {
            return CommandFailure.report(spec, "cannot write " + out + ": " + e, 1);
        }
    }
}
