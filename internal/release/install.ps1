# Installs compartment from this airgap bundle on Windows. No network is used.
#   powershell -ExecutionPolicy Bypass -File install.ps1
$ErrorActionPreference = 'Stop'
Set-Location -LiteralPath $PSScriptRoot

foreach ($line in Get-Content -LiteralPath 'SHA256SUMS') {
    $want, $name = $line -split '  ', 2
    $got = (Get-FileHash -Algorithm SHA256 -LiteralPath $name).Hash.ToLower()
    if ($got -ne $want) { throw "install: $name has SHA-256 $got, SHA256SUMS says $want; refusing to install" }
}

$bin = Join-Path $env:LOCALAPPDATA 'compartment'
$dataDir = Join-Path $env:USERPROFILE '.compartment'
New-Item -ItemType Directory -Force -Path $bin, $dataDir | Out-Null
Copy-Item -Force 'bin\compartment.exe' (Join-Path $bin 'compartment.new.exe')
Move-Item -Force (Join-Path $bin 'compartment.new.exe') (Join-Path $bin 'compartment.exe')
if (Test-Path 'bin\compartment.sig') { Copy-Item -Force 'bin\compartment.sig' $bin }
Write-Output "installed $bin\compartment.exe"

if (Test-Path 'models') {
    $models = Join-Path $dataDir 'models'
    New-Item -ItemType Directory -Force -Path $models | Out-Null
    foreach ($m in Get-ChildItem -Directory 'models') {
        $dst = Join-Path $models $m.Name
        if (Test-Path $dst) { Remove-Item -Recurse -Force $dst }
        Copy-Item -Recurse $m.FullName $dst
        Write-Output "installed model $($m.Name) in $dst"
    }
}
Write-Output "add $bin to your PATH, then: compartment init"
