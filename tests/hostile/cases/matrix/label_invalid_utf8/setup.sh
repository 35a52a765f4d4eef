printf 'name: m\nscenarios: [s.yaml]\ndefaults: {launcher: direct, backend: host}\naxes:\n  - name: a\n    values: ["a\xff\xfeb"]\n' > m.yaml
