package io.github.redislock.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The list of redis-server candidates that the server matrix's legs index into. */
class RedisBinaryTest {

    @TempDir
    Path directory;

    @Test
    void hidingTheInstalledServersLeavesTheEmbeddedJarAlone() {
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.find(
                Map.of("PATH", "/usr/bin:/usr/local/bin", RedisBinary.IGNORE_INSTALLED_VARIABLE, "true"), "Linux", "amd64");
        assertThat(candidates).extracting(RedisBinaryCandidate::source).containsExactly(RedisBinary.Source.EMBEDDED_REDIS_JAR);
    }

    @Test
    void theEnvironmentVariableComesFirstAndTheEmbeddedJarLast() throws IOException {
        Path named = executable(directory.resolve("named"));
        Path onPath = executable(directory.resolve("bin"));
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.find(
                Map.of("PATH", onPath.getParent().toString(), RedisBinary.ENV_VARIABLE, named.toString()), "Linux", "amd64");
        assertThat(candidates.get(0).executable()).isEqualTo(named);
        assertThat(candidates.get(1).executable()).isEqualTo(onPath);
        assertThat(candidates.get(candidates.size() - 1).source()).isEqualTo(RedisBinary.Source.EMBEDDED_REDIS_JAR);
    }

    @Test
    void oneFileReachedTwiceThroughASymlinkIsOneCandidate() throws IOException {
        Path real = executable(directory.resolve("real"));
        Path linkDirectory = Files.createDirectories(directory.resolve("link"));
        Files.createSymbolicLink(linkDirectory.resolve("redis-server"), real);
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.find(
                Map.of("PATH", linkDirectory.toString(), RedisBinary.ENV_VARIABLE, real.toString()), "Linux", "amd64");
        assertThat(candidates).filteredOn(candidate -> candidate.executable() != null && candidate.executable().startsWith(directory))
                .hasSize(1);
    }

    @Test
    void valkeyIsFoundByItsOwnVariableThenOnThePathAndNeverInTheEmbeddedJar() throws IOException {
        Path named = executable(directory.resolve("named"), "valkey-server");
        Path onPath = executable(directory.resolve("bin"), "valkey-server");
        executable(onPath.getParent(), "redis-server");
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.findValkey(
                Map.of("PATH", onPath.getParent().toString(), RedisBinary.VALKEY_ENV_VARIABLE, named.toString(),
                        RedisBinary.IGNORE_INSTALLED_VARIABLE, "false"), "Linux");
        assertThat(candidates).extracting(RedisBinaryCandidate::executable).startsWith(named, onPath)
                .allMatch(executable -> executable.getFileName().toString().equals("valkey-server"));
        assertThat(candidates).extracting(RedisBinaryCandidate::source).doesNotContain(RedisBinary.Source.EMBEDDED_REDIS_JAR);
    }

    @Test
    void hidingTheInstalledServersLeavesNoValkey() {
        assertThat(RedisBinaryCandidates.findValkey(
                Map.of("PATH", "/usr/bin:/usr/local/bin", RedisBinary.IGNORE_INSTALLED_VARIABLE, "true"), "Linux")).isEmpty();
    }

    @Test
    void aValkeyVariableNamingNoFileFailsNamingTheVariable() {
        assertThatThrownBy(() -> RedisBinaryCandidates.findValkey(
                Map.of(RedisBinary.VALKEY_ENV_VARIABLE, directory.resolve("missing").toString()), "Linux"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RedisBinary.VALKEY_ENV_VARIABLE)
                .hasMessageContaining("point it to a valkey-server executable");
    }

    private static Path executable(Path parent) throws IOException {
        return executable(parent, "redis-server");
    }

    private static Path executable(Path parent, String name) throws IOException {
        Files.createDirectories(parent);
        Path file = Files.writeString(parent.resolve(name), "#!/bin/sh\n");
        assertThat(file.toFile().setExecutable(true)).isTrue();
        return file.toAbsolutePath();
    }
}
