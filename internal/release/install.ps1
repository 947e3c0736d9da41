# Installs compartment from this airgap bundle on Windows. No network is used.
#   powershell -ExecutionPolicy Bypass -File install.ps1
# It installs only files SHA256SUMS lists, and nothing at all when the
# bundle holds a file the list does not name, when a checksum differs, when
# the program's line is missing, or when a signature does not verify (the
# check is `compartment setup verify-bundle`, run by the compartment already
# installed here, else by the bundle's own program; $env:COMPARTMENT_RELEASE_PUB
# names a release public key file to trust too, and a bundle made without the
# release key installs only with $env:COMPARTMENT_ALLOW_UNSIGNED = '1').
$ErrorActionPreference = 'Stop'
Set-Location -LiteralPath $PSScriptRoot
function Fail($why) { throw "install: $why; nothing was installed" }

if (-not (Test-Path -LiteralPath 'SHA256SUMS')) { Fail "no SHA256SUMS here, so this is not a whole bundle; make it again with 'compartment setup airgap-bundle'" }
$listed = @{}
foreach ($line in Get-Content -LiteralPath 'SHA256SUMS') {
    if ($line -notmatch '^[0-9a-f]{64}  [^ /\\].*$') { Fail "SHA256SUMS has a line that is not '<sha256>  <name>': $line" }
    $want, $name = $line -split '  ', 2
    if ($name -match '(^|/)\.\.(/|$)' -or $listed.ContainsKey($name)) { Fail "SHA256SUMS lists $name twice or outside the bundle" }
    $listed[$name] = $want
}
$top = (Get-Location).Path
foreach ($f in Get-ChildItem -Recurse -Force -LiteralPath $top) {
    if ($f.Attributes -band [IO.FileAttributes]::ReparsePoint) { Fail "$($f.FullName) is a link; refusing the bundle: get it again" }
    if ($f.PSIsContainer) { continue }
    $rel = $f.FullName.Substring($top.Length + 1).Replace('\', '/')
    if ($rel -eq 'SHA256SUMS' -or $rel -eq 'SHA256SUMS.sig') { continue }
    if (-not $listed.ContainsKey($rel)) { Fail "$rel is in the bundle but not in SHA256SUMS (added after the bundle was made); refusing the bundle: get it again" }
}
if (-not $listed.ContainsKey('bin/compartment.exe')) { Fail "SHA256SUMS has no line for bin/compartment.exe; refusing a program the list does not vouch for" }
foreach ($name in $listed.Keys) {
    if (-not (Test-Path -LiteralPath $name -PathType Leaf)) { Fail "SHA256SUMS lists $name, which the bundle does not hold" }
    $got = (Get-FileHash -Algorithm SHA256 -LiteralPath $name).Hash.ToLower()
    if ($got -ne $listed[$name]) { Fail "$name has SHA-256 $got, SHA256SUMS says $($listed[$name]); refusing the bundle: get it again" }
}

$bin = Join-Path $env:LOCALAPPDATA 'compartment'
$dataDir = Join-Path $env:USERPROFILE '.compartment'
$checker = Join-Path $bin 'compartment.exe'
$how = "the compartment installed at $checker"
if (-not (Test-Path -LiteralPath $checker)) {
    $checker = Join-Path $top 'bin\compartment.exe'
    $how = "this bundle's own program (a first install: compare the signing key above with the release key you were given)"
}
$verifyArgs = @('setup', 'verify-bundle')
if ($env:COMPARTMENT_ALLOW_UNSIGNED -eq '1') { $verifyArgs += '--allow-unsigned' }
if ($env:COMPARTMENT_RELEASE_PUB) { $verifyArgs += @('--key', $env:COMPARTMENT_RELEASE_PUB) }
& $checker @verifyArgs $top
if ($LASTEXITCODE -ne 0) { Fail "the bundle's signatures do not check out (see above)" }
Write-Output "checked with $how"

New-Item -ItemType Directory -Force -Path $bin, $dataDir | Out-Null
$models = @{}
foreach ($name in ($listed.Keys | Sort-Object)) {
    switch -Wildcard ($name) {
        'bin/*' {
            $leaf = Split-Path -Leaf $name
            Copy-Item -Force -LiteralPath $name (Join-Path $bin "$leaf.new")
            Move-Item -Force (Join-Path $bin "$leaf.new") (Join-Path $bin $leaf)
            Write-Output "installed $bin\$leaf"
        }
        'models/*/*' {
            $parts = $name.Split('/', 3)
            $stage = Join-Path $dataDir "models\.new-$($parts[1])"
            if (-not $models.ContainsKey($parts[1])) {
                if (Test-Path $stage) { Remove-Item -Recurse -Force $stage }
                $models[$parts[1]] = $stage
            }
            $dst = Join-Path $stage $parts[2].Replace('/', '\')
            New-Item -ItemType Directory -Force -Path (Split-Path -Parent $dst) | Out-Null
            Copy-Item -Force -LiteralPath $name $dst
        }
    }
}
foreach ($m in $models.Keys) {
    $dst = Join-Path $dataDir "models\$m"
    if (Test-Path $dst) { Remove-Item -Recurse -Force $dst }
    Move-Item $models[$m] $dst
    Write-Output "installed model $m in $dst"
}
Write-Output "add $bin to your PATH, then: compartment init"
