#!/usr/bin/env bash
# Generates the audio fixtures the SlipstreamAudio tests parse, from Debian's own tools
# (sox, lame, ffmpeg, mpg123; perl for the hand-built tags), and the reference figures the
# decoders report for each of them. Binaries are never committed: this script is the fixture.
#   scripts/make-audio-fixtures.sh OUTDIR
# Writes OUTDIR/*.{mp3,mp2,aac,wav,flac,aiff,caf}, OUTDIR/mp4-* (AAC in MP4), OUTDIR/unsupported-*
# (containers the player refuses) and OUTDIR/reference.tsv with one line per fixture (but the
# *-format-change* joins, the *-info-only* file, the mp4-* files, the FLAC, AIFF and CAF files and the
# unsupported-* files, whose tests need no reference line):
#   name  kind  packets  samples  duration  sample_rate  channels  title  artist  album
# packets: MPEG frames as mpg123 counts them (the Xing/Info frame excluded), ADTS frames as
#   ffprobe -count_packets counts them, "-" for WAV (ffmpeg's packets are its own choice);
# samples: per channel, after gapless trimming, as the decoders output them (mpg123 for
#   MPEG audio, ffmpeg for ADTS, the file itself for WAV), and so are sample_rate (Hz) and
#   channels; duration: ffprobe's format duration (seconds);
# title/artist/album: the tags ffprobe reads ("-" when absent).
# Idempotent: a finished OUTDIR whose stamp matches this script is left as it is.
set -euo pipefail

out="${1:?usage: make-audio-fixtures.sh OUTDIR}"
stamp="$(sha256sum "$0" | cut -d' ' -f1)"
if [[ -f "$out/reference.tsv" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then
    exit 0
fi
mkdir -p "$out"
rm -f "$out"/*.mp3 "$out"/*.mp2 "$out"/*.aac "$out"/*.wav "$out"/*.flac "$out"/*.aiff "$out"/*.caf "$out"/unsupported-* "$out"/mp4-* "$out/reference.tsv" "$out/.stamp"
tmp="$(mktemp -d "$out/.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# Sources: a 3-second sweep (left) and pink noise (right), repeatable (-R), undithered (-D).
source_wav() { # rate channels seconds file
    sox -R -D -n -r "$1" -c 2 -b 16 "$tmp/s.wav" synth "$3" sine 220-3520 pinknoise gain -4
    if [[ "$2" == 1 ]]; then sox -R -D "$tmp/s.wav" "$4" remix 1; else mv "$tmp/s.wav" "$4"; fi
}
source_wav 44100 2 3 "$tmp/44100.wav"
for rate in 22050 24000 16000 8000 11025 12000 48000; do source_wav "$rate" 2 3 "$tmp/$rate.wav"; done
source_wav 44100 1 3 "$tmp/44100-mono.wav"
source_wav 22050 1 3 "$tmp/22050-mono.wav"

mp3() { lame --quiet --noreplaygain "$@"; }
# MPEG-1 Layer III: CBR, VBR, ABR, mono, CRC, free format, with and without the Xing/LAME frame.
mp3 -b 32 --resample 44.1 "$tmp/44100.wav" "$out/mp3-cbr32.mp3"
mp3 -b 128 "$tmp/44100.wav" "$out/mp3-cbr128.mp3"
mp3 -b 320 "$tmp/44100.wav" "$out/mp3-cbr320.mp3"
mp3 -V 0 "$tmp/44100.wav" "$out/mp3-vbr-v0.mp3"
mp3 -V 9 "$tmp/44100.wav" "$out/mp3-vbr-v9.mp3"
mp3 --abr 112 "$tmp/44100.wav" "$out/mp3-abr112.mp3"
mp3 -m m -b 64 "$tmp/44100-mono.wav" "$out/mp3-mono64.mp3"
mp3 -p -b 128 "$tmp/44100.wav" "$out/mp3-crc128.mp3"
mp3 --freeformat -b 400 "$tmp/44100.wav" "$out/mp3-freeformat400.mp3"
mp3 -t -b 128 "$tmp/44100.wav" "$out/mp3-cbr128-noxing.mp3"
mp3 -t -V 2 "$tmp/44100.wav" "$out/mp3-vbr-v2-noxing.mp3"
mp3 -b 192 "$tmp/48000.wav" "$out/mp3-cbr192-48k.mp3"
# MPEG-2 (22.05/24/16 kHz) and MPEG-2.5 (8/11.025/12 kHz).
mp3 -b 64 "$tmp/22050.wav" "$out/mp3-mpeg2-22050.mp3"
mp3 -V 4 "$tmp/24000.wav" "$out/mp3-mpeg2-24000-vbr.mp3"
mp3 -b 48 -m m "$tmp/16000.wav" "$out/mp3-mpeg2-16000-mono.mp3"
mp3 -b 16 "$tmp/8000.wav" "$out/mp3-mpeg25-8000.mp3"
mp3 -V 6 "$tmp/11025.wav" "$out/mp3-mpeg25-11025-vbr.mp3"
mp3 -t -b 24 --resample 12 "$tmp/12000.wav" "$out/mp3-mpeg25-12000-noxing.mp3"
# The other half of the radio tests' playlist (with mp3-cbr128-noxing.mp3: 44.1 kHz stereo),
# streamed as it is by ezstream: no Xing frame, as a station's files are joined.
mp3 -t -m m -b 32 "$tmp/22050-mono.wav" "$out/mp3-mpeg2-22050-mono-noxing.mp3"
# A tagged 22.05 kHz mono song with its Info frame (the second half of
# mp3-format-change-station.mp3, below).
mp3 -b 64 -m m --id3v2-only --tt "Station Two" --ta "Mono Artist" "$tmp/22050-mono.wav" "$out/mp3-mpeg2-22050-mono.mp3"
# A stream whose format changes in the middle: 3 s at 44.1 kHz stereo, then 3 s at 16 kHz mono
# (two files one after the other, as a radio station or a careless join makes them). No
# reference line: the player's tests check it themselves.
cat "$out/mp3-cbr128.mp3" "$out/mp3-mpeg2-16000-mono.mp3" >"$out/mp3-format-change.mp3"
# Tags written by lame itself.
mp3 -b 128 --id3v1-only --tt "Lame One" --ta "Lame Artist" --tl "Lame Album" \
    "$tmp/44100.wav" "$out/mp3-id3v1.mp3"
mp3 -b 128 --id3v2-only --tt "Lame Two" --ta "Lame Artist" --tl "Lame Album" \
    "$tmp/44100.wav" "$out/mp3-id3v2-lame.mp3"
# A station's playlist mixing files, sent as they are (tags, Info frames and all, as ezstream or
# any file-playing source sends them): a tagged 44.1 kHz stereo song, then a tagged 22.05 kHz
# mono one.
cat "$out/mp3-id3v2-lame.mp3" "$out/mp3-mpeg2-22050-mono.mp3" >"$out/mp3-format-change-station.mp3"

# Hand-built tags (perl: the only tool that writes every ID3 variant byte-exactly).
tag() { perl -e "$(cat <<'PERL'
use strict; use Encode qw(encode);
binmode STDOUT;
sub ss { my $n = shift; pack("C4", ($n >> 21) & 127, ($n >> 14) & 127, ($n >> 7) & 127, $n & 127) }
sub v23 { my ($id, $body) = @_; $id . pack("N", length $body) . "\0\0" . $body }
sub v24 { my ($id, $body) = @_; $id . ss(length $body) . "\0\0" . $body }
sub v22 { my ($id, $body) = @_; $id . substr(pack("N", length $body), 1) . $body }
my $kind = shift;
if ($kind eq "v23-picture") {
    # 10 MiB of repeatable junk full of fake frame headers: a sync may never be taken from it.
    srand(42); my $junk = join("", map { pack("N", int(rand(2**32))) } 1 .. 262144);
    $junk .= "\xff\xfb\x90\x64" x 4096; $junk = $junk x 10;
    my $frames = v23("TIT2", "\0Big Picture") . v23("TPE1", "\x01" . encode("UTF-16", "\x{c4}rtist \x{2603}"))
        . v23("TALB", "\0Junk") . v23("APIC", "\0image/jpeg\0\x03cover\0" . $junk);
    print "ID3\x03\x00\x00" . ss(length($frames) + 1024) . $frames . ("\0" x 1024);
} elsif ($kind eq "v24-footer") {
    # Extended header (6 bytes, CRC flag clear), UTF-8 and UTF-16BE text, and a footer.
    my $frames = "\0\0\0\x06\x01\x00" . v24("TIT2", "\x03" . encode("UTF-8", "T\x{ef}tle \x{2713}"))
        . v24("TPE1", "\x02" . encode("UTF-16BE", "Ba\x{df} \x{263a}")) . v24("TALB", "\x03Vier\0");
    print "ID3\x04\x00\x50" . ss(length $frames) . $frames . "3DI\x04\x00\x50" . ss(length $frames);
} elsif ($kind eq "v22") {
    my $frames = v22("TT2", "\0Twenty-Two") . v22("TP1", "\0Old Artist") . v22("TAL", "\0Old Album");
    print "ID3\x02\x00\x00" . ss(length($frames) + 100) . $frames . ("\0" x 100);
} elsif ($kind eq "tail") {
    # APEv2 (header + items + footer), Lyrics3v2, then ID3v1.1: everything that trails an MP3.
    my $items = join("", map { pack("V V", length $_->[1], 0) . $_->[0] . "\0" . $_->[1] }
        (["Title", "Tail Title"], ["Artist", "Tail Artist"], ["Album", "Tail Album"]));
    my $size = length($items) + 32;
    my $hf = sub { "APETAGEX" . pack("V V V V", 2000, $size, 3, shift) . ("\0" x 8) };
    print $hf->(0xA0000000) . $items . $hf->(0x80000000);
    my $lyrics = "LYRICSBEGIN" . "IND00002" . "11" . "LYR00012" . "[00:01]Hello";
    print $lyrics . sprintf("%06d", length $lyrics) . "LYRICS200";
    my $f = sub { my ($s, $n) = @_; substr($s . ("\0" x $n), 0, $n) };
    print "TAG" . $f->("Tail Title", 30) . $f->("Tail Artist", 30) . $f->("Tail Album", 30)
        . "2024" . $f->("comment", 28) . "\0\x05\x0c";
}
PERL
)" "$@"; }
tag v23-picture >"$tmp/v23.tag"
cat "$tmp/v23.tag" "$out/mp3-cbr128.mp3" >"$out/mp3-id3v23-picture.mp3"
tag v24-footer >"$tmp/v24.tag"
cat "$tmp/v24.tag" "$out/mp3-vbr-v0.mp3" >"$out/mp3-id3v24-footer.mp3"
tag v22 >"$tmp/v22.tag"
cat "$tmp/v22.tag" "$out/mp3-mono64.mp3" >"$out/mp3-id3v22.mp3"
tag tail >"$tmp/tail.tag"
cat "$out/mp3-cbr128.mp3" "$tmp/tail.tag" >"$out/mp3-ape-lyrics3-id3v1.mp3"

# MPEG-1 Layer II (ffmpeg's mp2 encoder; no header frames).
ffmpeg -v error -y -i "$tmp/44100.wav" -c:a mp2 -b:a 192k -f mp2 "$out/mp2-192k.mp2"
ffmpeg -v error -y -i "$tmp/48000.wav" -ac 1 -c:a mp2 -b:a 64k -f mp2 "$out/mp2-48k-mono.mp2"

# MP3's edge cases, checked against mpg123 like the rest (perl edits the frames by hand):
# free-format Layer II (a 384 kbit/s 48 kHz file, whose frames are all 1,152 bytes, with every
# header's bit rate index set to 0); a lone Layer II frame whose allocation and scalefactors are
# out of range (its body after the header all ones); a Layer III frame whose side information
# is all ones (main data from 511 bytes back, lengths past the frame), and a run of six with
# junk there; a file that is only its Info frame (no samples, as mpg123 decodes it).
ffmpeg -v error -y -i "$tmp/48000.wav" -c:a mp2 -b:a 384k -f mp2 "$tmp/l2-384.mp2"
frames() { perl -e "$(cat <<'PERL'
use strict; binmode STDIN; binmode STDOUT; local $/; my $d = <STDIN>; my $kind = shift;
my @br = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320);
my ($i, $n) = (0, 0);
while ($i + 4 <= length $d) {
    my ($a, $b, $c) = unpack("C3", substr($d, $i, 3));
    if ($a != 0xFF || ($b & 0xE0) != 0xE0) { $i++; next }
    # The Layer II file's frames are all 1,152 bytes; the Layer III one's are 44.1 kHz CBR.
    my $size = $kind =~ /^(free|scalefactors)$/ ? 1152 : int(144000 * $br[$c >> 4] / 44100) + (($c >> 1) & 1);
    die "no frame size at byte $i" if $size < 4;
    substr($d, $i + 2, 1) = chr($c & 0x0F) if $kind eq "free";
    substr($d, $i + 4, 196) = "\xff" x 196 if $kind eq "scalefactors" && $n == 50;
    substr($d, $i + 4, 32) = "\xff" x 32 if $kind eq "sideinfo" && $n == 40;
    substr($d, $i + 4, 32) = join("", map { chr(($i + $_) * 37 % 256) } 4 .. 35) if $kind eq "sideinfo-run" && $n >= 60 && $n < 66;
    $n++; $i += $size;
}
print $d;
PERL
)" "$@"; }
frames free <"$tmp/l2-384.mp2" >"$out/mp2-freeformat-384k.mp2"
frames scalefactors <"$tmp/l2-384.mp2" >"$out/mp2-bad-scalefactors.mp2"
frames sideinfo <"$out/mp3-cbr128.mp3" >"$out/mp3-damaged-sideinfo.mp3"
frames sideinfo-run <"$out/mp3-cbr128.mp3" >"$out/mp3-damaged-sideinfo-run.mp3"
sox -R -D -n -r 44100 -c 2 -b 16 "$tmp/empty.wav" trim 0 0
mp3 -b 128 "$tmp/empty.wav" "$out/mp3-info-only.mp3"
# Format changes inside one file: 44.1 kHz to 48 kHz, and mono to stereo.
cat "$out/mp3-cbr128.mp3" "$out/mp3-cbr192-48k.mp3" >"$out/mp3-format-change-48k.mp3"
cat "$out/mp3-mono64.mp3" "$out/mp3-cbr128.mp3" >"$out/mp3-format-change-mono-stereo.mp3"

# AAC in ADTS.
ffmpeg -v error -y -i "$tmp/44100.wav" -c:a aac -b:a 128k -f adts "$out/aac-lc-128k.aac"
ffmpeg -v error -y -i "$tmp/22050.wav" -ac 1 -c:a aac -b:a 48k -f adts "$out/aac-lc-22050-mono.aac"
ffmpeg -v error -y -i "$tmp/44100.wav" -ar 48000 -ac 1 -c:a aac -b:a 64k -f adts "$out/aac-lc-48000-mono.aac"
# An ADTS stream whose format changes: 44.1 kHz stereo, then 48 kHz mono (a core rate of 24 kHz
# or less would be decoded at twice it in stereo, as the first part).
cat "$out/aac-lc-128k.aac" "$out/aac-lc-48000-mono.aac" >"$out/aac-format-change.aac"

# WAV: 8/16/24/32-bit integer, float, big-endian RIFX, WAVE_FORMAT_EXTENSIBLE (24-bit from
# sox), and an odd-sized unknown chunk before an odd-sized data chunk followed by a LIST chunk.
sox -R -D "$tmp/44100.wav" -b 8 "$out/wav-u8.wav"
sox -R -D "$tmp/44100.wav" -b 16 "$out/wav-s16.wav"
sox -R -D "$tmp/44100.wav" -b 24 "$out/wav-s24-extensible.wav"
sox -R -D "$tmp/44100.wav" -b 32 -e signed-integer "$out/wav-s32.wav"
sox -R -D "$tmp/44100.wav" -b 32 -e floating-point "$out/wav-f32.wav"
sox -R -D "$tmp/44100.wav" -b 16 -B "$out/wav-rifx-s16.wav"
sox -R -D "$tmp/11025.wav" -b 8 -c 1 "$tmp/odd.wav" trim 0 1.0001
perl -e '
    use strict; binmode STDIN; binmode STDOUT; local $/; my $w = <STDIN>;
    my $data = index($w, "data"); my $n = unpack("V", substr($w, $data + 4, 4));
    my $body = substr($w, 12, $data - 12) . "junk" . pack("V", 3) . "abc\0"
        . substr($w, $data, 8 + $n) . ($n % 2 ? "\0" : "") . "LIST" . pack("V", 10) . "INFOIART\0\0";
    print "RIFF" . pack("V", 4 + length $body) . "WAVE" . $body;
' <"$tmp/odd.wav" >"$out/wav-u8-odd-chunks.wav"

# FLAC from the reference encoder: with a seek point every second, tags and a 90 KB cover
# picture (which the parser skips without holding), 24-bit mono without a seek table, and
# behind an ID3v2 tag; 40 s without a seek table; and as ffmpeg writes it.
ffmpeg -v error -y -f lavfi -i "nullsrc=s=256x256,geq=random(1)*255:128:128" -frames:v 1 "$tmp/cover.png"
flac -s -f --seekpoint=1s -T "TITLE=Flac Title" -T "ARTIST=Flac Artist" -T "ALBUM=Flac Album" \
    --picture="$tmp/cover.png" "$tmp/44100.wav" -o "$out/flac-16-seektable.flac"
sox -R -D "$tmp/48000.wav" -b 24 -c 1 -t wavpcm "$tmp/48000-24.wav" remix 1
flac -s -f --no-seektable --no-padding "$tmp/48000-24.wav" -o "$out/flac-24-mono.flac"
cat "$tmp/v22.tag" "$out/flac-16-seektable.flac" >"$out/flac-id3v2.flac"
# 40 s without a SEEKTABLE: a seek is found by probing the frames with range requests.
source_wav 44100 2 40 "$tmp/44100-long.wav"
flac -s -f --no-seektable "$tmp/44100-long.wav" -o "$out/flac-16-long-noseektable.flac"
ffmpeg -v error -y -i "$tmp/22050.wav" -c:a flac "$out/flac-ffmpeg-22050.flac"

# AIFF, AIFF-C and CAF: PCM of each sample type and byte order (sox and ffmpeg).
sox -R -D "$tmp/44100.wav" "$out/aiff-s16.aiff"
sox -R -D "$tmp/22050-mono.wav" -b 24 "$out/aiff-s24-mono.aiff"
ffmpeg -v error -y -i "$tmp/44100.wav" -c:a pcm_s16le -f aiff "$out/aifc-sowt.aiff"
ffmpeg -v error -y -i "$tmp/48000.wav" -c:a pcm_f32be -f aiff "$out/aifc-f32.aiff"
ffmpeg -v error -y -i "$tmp/44100.wav" -c:a pcm_s16le -f caf "$out/caf-s16.caf"
ffmpeg -v error -y -i "$tmp/22050.wav" -c:a pcm_s24be -f caf "$out/caf-s24be.caf"
ffmpeg -v error -y -i "$tmp/44100.wav" -c:a pcm_f32le -f caf "$out/caf-f32.caf"
# 8 bits (signed in both containers) and 32-bit integers.
sox -R -D "$tmp/44100.wav" -b 8 "$out/aiff-s8.aiff"
sox -R -D "$tmp/22050-mono.wav" -b 8 -t aifc "$out/aifc-s8-mono.aiff"
sox -R -D "$tmp/48000.wav" -b 32 "$out/aiff-s32.aiff"
sox -R -D "$tmp/22050.wav" -b 8 -e signed-integer "$out/caf-s8.caf"
ffmpeg -v error -y -i "$tmp/44100.wav" -c:a pcm_s32le -f caf "$out/caf-s32le.caf"

# Containers the player cannot play yet, as ffmpeg writes them (refused by their first bytes,
# by name).
for spec in "vorbis.mka -c:a libvorbis -q:a 3" "opus.webm -c:a libopus -b:a 64k"; do
    read -r name codec <<<"$spec"
    # shellcheck disable=SC2086 # the codec options are words
    ffmpeg -v error -y -i "$tmp/44100.wav" -map_metadata -1 $codec "$out/unsupported-$name"
done

# AAC in MP4 as ffmpeg writes it (no reference line: the tests decode them with faad and read
# their sources' lengths themselves): the index (moov) after the audio (ffmpeg's default, the
# issue's M4A once taken for MPEG Layer II) and before it, tagged, mono 22.05 kHz, with Nero
# chapters (M4B), and fragmented (fMP4: an empty moov, then moof+mdat pairs).
printf ';FFMETADATA1\ntitle=Chapter Book\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1250\ntitle=Opening\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1250\nEND=3000\ntitle=Second part\n' >"$tmp/chapters.txt"
m4a() { ffmpeg -v error -y -i "$1" -map_metadata -1 -c:a aac -b:a "${@:3}" "$out/$2"; }
m4a "$tmp/44100.wav" mp4-aac-moov-end.m4a 128k -metadata title="Box Title" -metadata artist="Box Artist" -metadata album="Box Album"
m4a "$tmp/44100.wav" mp4-aac-faststart.m4a 128k -movflags +faststart
m4a "$tmp/22050-mono.wav" mp4-aac-22050-mono.m4a 48k -movflags +faststart
ffmpeg -v error -y -i "$tmp/44100.wav" -i "$tmp/chapters.txt" -map 0:a -map_metadata 1 -map_chapters 1 -c:a aac -b:a 96k \
    "$out/mp4-aac-chapters.m4b"
# The same with its index first (ffmpeg writes Nero chapters and a QuickTime chapter track both).
ffmpeg -v error -y -i "$out/mp4-aac-chapters.m4b" -c copy -movflags +faststart "$out/mp4-aac-chapters-faststart.m4b"
m4a "$tmp/44100.wav" mp4-aac-fragmented.mp4 128k -movflags +frag_keyframe+empty_moov+default_base_moof -frag_duration 500000
# 40 s fragmented (1 s fragments, each dated by its tfdt), with a segment index of the whole
# file (sidx) and without, for seeks; and the same audio unfragmented, for faad.
frag=+frag_keyframe+empty_moov+default_base_moof
m4a "$tmp/44100-long.wav" mp4-aac-long-fragmented.mp4 128k -movflags "$frag" -frag_duration 1000000
m4a "$tmp/44100-long.wav" mp4-aac-long-fragmented-sidx.mp4 128k -movflags "$frag+global_sidx" -frag_duration 1000000
m4a "$tmp/44100-long.wav" mp4-aac-long-faststart.m4a 128k -movflags +faststart
# The sources' lengths (frames), which gapless playback gives back.
for f in 44100 22050-mono; do soxi -s "$tmp/$f.wav" >"$out/mp4-source-$f.frames"; done

# AAC in CAF. ffmpeg's CAF muxer does not write AAC ("muxing codec currently unsupported") and
# no other Debian tool does, so perl lays an M4A's own access units (copied out as ADTS by
# ffmpeg, their headers stripped here) into a CAF as Apple's afconvert does: desc (aac , 1,024
# frames a packet), kuki (an ES descriptor holding the AudioSpecificConfig built from the ADTS
# header), pakt (the M4A's 1,024 frames of priming, the source's length as the valid frames,
# the rest as remainder, then each packet's size as a variable-length integer), data; and the
# same with the table after the audio, as a recorder (or ffmpeg, for ALAC) writes it. ffmpeg's
# own CAF demuxer reads both back to the M4A's samples.
ffmpeg -v error -y -i "$out/mp4-aac-faststart.m4a" -c copy -f adts "$tmp/m4a.adts"
cafaac() { perl -e "$(cat <<'PERL'
use strict; binmode STDIN; binmode STDOUT; local $/; my $d = <STDIN>; my ($valid, $tableLast) = @ARGV;
my (@sizes, $data, $h);
my $i = 0;
while ($i + 7 <= length $d) {
    my @b = unpack("C7", substr($d, $i, 7));
    die "no ADTS frame at byte $i" unless $b[0] == 0xFF && ($b[1] & 0xF6) == 0xF0;
    $h //= [@b];
    my $length = (($b[3] & 3) << 11) | ($b[4] << 3) | ($b[5] >> 5);
    my $header = ($b[1] & 1) ? 7 : 9;
    $data .= substr($d, $i + $header, $length - $header);
    push @sizes, $length - $header;
    $i += $length;
}
my ($type, $index, $channels) = (($h->[2] >> 6) + 1, ($h->[2] >> 2) & 15, (($h->[2] & 1) << 2) | ($h->[3] >> 6));
my @rates = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350);
my $config = pack("n", ($type << 11) | ($index << 7) | ($channels << 3));
sub descriptor { my ($tag, $body) = @_; pack("C5", $tag, 0x80, 0x80, 0x80, length $body) . $body }
my $decoder = descriptor(4, "\x40\x15\0\x18\0" . pack("N N", 0, 0) . descriptor(5, $config));
my $cookie = descriptor(3, "\0\0\0" . $decoder . descriptor(6, "\x02"));
sub chunk { my ($name, $body) = @_; $name . pack("q>", length $body) . $body }
sub varint { my $v = shift; my $s = chr($v & 127); while ($v >>= 7) { $s = chr(0x80 | ($v & 127)) . $s } $s }
my ($total, $priming) = (1024 * @sizes, 1024);
my $table = pack("q> q> N N", scalar @sizes, $valid, $priming, $total - $priming - $valid) . join("", map { varint($_) } @sizes);
my ($pakt, $audio) = (chunk("pakt", $table), chunk("data", "\0\0\0\0" . $data));
print "caff\0\1\0\0" . chunk("desc", pack("d> a4 N N N N N", $rates[$index], "aac ", 2, 0, 1024, $channels, 0))
    . chunk("kuki", $cookie) . ($tableLast ? $audio . $pakt : $pakt . $audio);
PERL
)" "$@"; }
cafaac "$(cat "$out/mp4-source-44100.frames")" 0 <"$tmp/m4a.adts" >"$out/caf-aac.caf"
cafaac "$(cat "$out/mp4-source-44100.frames")" 1 <"$tmp/m4a.adts" >"$out/caf-aac-pakt-end.caf"

# Reference figures.
probe() { ffprobe -v quiet -select_streams a:0 -show_entries "$1" -of default=nw=1:nk=1 "$2" | head -1; }
tagval() { local v; v="$(probe "format_tags=$1" "$2")"; echo "${v:--}"; }
{
    for f in "$out"/*; do
        name="$(basename "$f")"
        case "$name" in
        # FLAC's, AIFF's and CAF's tests decode with flac -d and sox themselves.
        *-format-change* | *-info-only* | unsupported-* | mp4-* | *.flac | *.aiff | *.caf) continue ;;
        *.mp3 | *.mp2)
            kind=mpeg
            packets="$(mpg123 -t -v "$f" 2>&1 | tr '\r' '\n' | sed -n 's/^> 0*\([0-9][0-9]*\)+0*0 .*/\1/p' | tail -1)"
            mpg123 -q -w "$tmp/decoded.wav" "$f"
            decoded="$tmp/decoded.wav"
            ;;
        *.aac)
            kind=adts
            packets="$(ffprobe -v error -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$f")"
            ffmpeg -v error -y -i "$f" "$tmp/decoded.wav"
            decoded="$tmp/decoded.wav"
            ;;
        *.wav)
            kind=wav
            packets=-
            decoded="$f"
            ;;
        esac
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$packets" "$(soxi -s "$decoded")" \
            "$(probe format=duration "$f")" "$(soxi -r "$decoded")" "$(soxi -c "$decoded")" \
            "$(tagval title "$f")" "$(tagval artist "$f")" "$(tagval album "$f")"
    done
} >"$tmp/reference.tsv"
mv "$tmp/reference.tsv" "$out/reference.tsv"
echo "$stamp" >"$out/.stamp"
