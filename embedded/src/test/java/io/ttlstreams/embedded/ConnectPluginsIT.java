package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.connect.ConnectorConfigs;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.isolation.PluginClassLoader;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugins the build packs ({@link ConnectPlugins}), loaded as the embedded worker loads them: the MongoDB
 * connectors in a class loader of their own, on the driver their {@code all} jar bundles, while this JVM (the
 * processor's) runs on its own driver and carries no connector class. An IT because the build packs the plugins at
 * {@code prepare-package}, after the unit tests.
 */
@Tag("integration")
class ConnectPluginsIT {

    private static final String DRIVER_VERSION = "com.mongodb.internal.build.MongoDriverVersion";

    @TempDir
    static Path pluginPath;

    private static Plugins plugins;

    @BeforeAll
    static void installPlugins() {
        ConnectPlugins.install(pluginPath);
        plugins = new Plugins(Map.of("plugin.path", pluginPath.toString(), "plugin.discovery", "service_load"));
    }

    @Test
    void shouldRunTheConnectorsOnTheirOwnDriverWhenTheProcessorRunsOnItsOwn() throws Exception {
        for (String connectorClass :
                new String[] {ConnectorConfigs.SINK_CONNECTOR, "com.mongodb.kafka.connect.MongoSourceConnector"}) {
            Connector connector = plugins.newConnector(connectorClass);
            ClassLoader loader = connector.getClass().getClassLoader();

            assertThat(loader).as(connectorClass).isInstanceOf(PluginClassLoader.class);
            assertThat(driverVersion(loader)).as(connectorClass).startsWith("4.7.");
        }
        assertThat(driverVersion(getClass().getClassLoader())).startsWith("5.");
    }

    @Test
    void shouldCarryNoConnectorClassOnTheClasspathWhenThePluginsAreInstalled() {
        assertThatThrownBy(() -> Class.forName(ConnectorConfigs.SINK_CONNECTOR))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName(ConnectorConfigs.SINK_GUARD)).isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void shouldLoadTheMarkWriteModelWithTheConnectorAndTheGuardInAPluginOfItsOwn() throws Exception {
        ClassLoader connectorLoader =
                plugins.newConnector(ConnectorConfigs.SINK_CONNECTOR).getClass().getClassLoader();
        Class<?> writeModel = Class.forName(ConnectorConfigs.COMMAND_WRITE_MODEL, false, connectorLoader);
        Class<?> guard = plugins.pluginClass(ConnectorConfigs.SINK_GUARD);

        assertThat(writeModel.getClassLoader()).isSameAs(connectorLoader);
        assertThat(Transformation.class).isAssignableFrom(guard);
        assertThat(guard.getClassLoader()).isInstanceOf(PluginClassLoader.class).isNotSameAs(connectorLoader);
    }

    /** The MongoDB driver's version as {@code loader} sees it. */
    private static String driverVersion(ClassLoader loader) throws ReflectiveOperationException {
        return (String)
                Class.forName(DRIVER_VERSION, true, loader).getField("VERSION").get(null);
    }
}
