import { describe, expect, it } from 'vitest';
import { bmiCategory, bodyFatCategory, bsaDuBois, healthReport } from '../../sources/health.ts';
import { expectNoServerErrors, getJson, useService } from './_corpus.ts';

describe('health formulas against hand-computed values', () => {
  it('male, 175 cm, 70 kg, 30 years, moderate activity', () => {
    const r = healthReport(175, 70, 30, 'male');
    // BMI = 70 / 1.75² = 22.857
    expect(r.bmi).toMatchObject({ value: 22.9, category: '正常', category_en: 'normal' });
    // 18.5 × 1.75² = 56.66; 23.9 × 1.75² = 73.19; 175 − 105 = 70
    expect(r.weight_assessment).toMatchObject({ ideal_weight_min_kg: 56.7, ideal_weight_max_kg: 73.2, standard_weight_kg: 70, adjustment_kg: 0 });
    // Deurenberg: 1.2 × 22.857 + 0.23 × 30 − 10.8 − 5.4 = 18.13
    expect(r.body_fat).toMatchObject({ percentage: '18.1%', percentage_value: 18.1, category: '一般', fat_mass_kg: 12.7, lean_mass_kg: 57.3 });
    // Mifflin–St Jeor: 10 × 70 + 6.25 × 175 − 5 × 30 + 5 = 1648.75; × 1.55 = 2555.6
    expect(r.metabolism).toMatchObject({ bmr_kcal: 1649, tdee_kcal: 2556, activity: 'moderate', activity_factor: 1.55, weight_loss_kcal: 2056, weight_gain_kcal: 2856 });
    expect(r.metabolism.tdee_by_activity_kcal).toEqual({ sedentary: 1979, light: 2267, moderate: 2556, active: 2844, very_active: 3133 });
    // Du Bois: 0.007184 × 70^0.425 × 175^0.725 = 1.849
    expect(r.body_surface_area.value_m2).toBe(1.85);
    expect(r.measurements).toMatchObject({ waist_max_by_height_cm: 87.5, central_obesity_waist_cm: 90, waist_hip_ratio_max: 0.9 });
    expect(r.daily_water_ml).toEqual({ min: 2100, max: 2450 });
  });

  it('female, 160 cm, 80 kg, 45 years, sedentary', () => {
    const r = healthReport(160, 80, 45, 'female', 'sedentary');
    // BMI = 80 / 2.56 = 31.25
    expect(r.bmi).toMatchObject({ value: 31.3, category: '肥胖', category_en: 'obese' });
    // 18.5 × 2.56 = 47.36, 23.9 × 2.56 = 61.18; 80 − 61.2 = 18.8 kg above
    expect(r.weight_assessment).toMatchObject({ ideal_weight_min_kg: 47.4, ideal_weight_max_kg: 61.2, adjustment_kg: 18.8, status: '高于理想体重范围 18.8 kg' });
    // 1.2 × 31.25 + 0.23 × 45 − 5.4 = 42.45
    expect(r.body_fat.percentage_value).toBeCloseTo(42.45, 1);
    expect(r.body_fat.category).toBe('肥胖');
    // 10 × 80 + 6.25 × 160 − 5 × 45 − 161 = 1414; × 1.2 = 1696.8; a deficit never goes below the BMR
    expect(r.metabolism).toMatchObject({ bmr_kcal: 1414, tdee_kcal: 1697, weight_loss_kcal: 1414 });
    // 0.007184 × 80^0.425 × 160^0.725 = 1.834
    expect(r.body_surface_area.value_m2).toBe(1.83);
    expect(r.measurements).toMatchObject({ central_obesity_waist_cm: 85, waist_hip_ratio_max: 0.85 });
    expect(r.advice.join()).toMatch(/咨询医生/);
  });

  it('children use the Deurenberg children formula', () => {
    // BMI = 35 / 1.4² = 17.857; 1.51 × 17.857 − 0.70 × 10 − 3.6 + 1.4 = 17.76
    const r = healthReport(140, 35, 10, 'male');
    expect(r.body_fat).toMatchObject({ percentage_value: 17.8, formula: 'Deurenberg 1991 (children)' });
    expect(r.advice.join()).toMatch(/未成年人/);
  });

  it('BMI bands follow the Chinese cut-offs 18.5 / 24 / 28', () => {
    expect(bmiCategory(18.4).category_en).toBe('underweight');
    expect(bmiCategory(18.5).category_en).toBe('normal');
    expect(bmiCategory(23.9).category_en).toBe('normal');
    expect(bmiCategory(24).category_en).toBe('overweight');
    expect(bmiCategory(27.9).category_en).toBe('overweight');
    expect(bmiCategory(28).category_en).toBe('obese');
    expect(healthReport(200, 74, 30, 'male').bmi.category).toBe('正常'); // 18.5
    expect(healthReport(200, 73, 30, 'male').bmi.category).toBe('偏瘦'); // 18.25
    expect(healthReport(100, 24, 30, 'female').bmi.category).toBe('超重'); // 24.0
  });

  it('body fat categories and Du Bois', () => {
    expect(bodyFatCategory(5, 'male')).toBe('必需脂肪');
    expect(bodyFatCategory(13.9, 'male')).toBe('运动员');
    expect(bodyFatCategory(25, 'male')).toBe('肥胖');
    expect(bodyFatCategory(31.9, 'female')).toBe('一般');
    expect(bsaDuBois(180, 75)).toBeCloseTo(1.942, 3);
  });
});

describe('health through the server', () => {
  const { svc } = useService();
  const ok = '/v2/apis/health?height=175&weight=70&age=30&gender=male';

  it('answers the report; text and markdown are readable reports', async () => {
    const { status, body } = await getJson<{ bmi: { value: number } }>(svc(), ok);
    expect(status).toBe(200);
    expect(body.data.bmi.value).toBe(22.9);
    const text = await (await svc().get(`${ok}&encoding=text`)).text();
    expect(text).toContain('BMI：22.9（正常');
    expect(text).not.toContain('[object Object]');
    expect(await (await svc().get(`${ok}&encoding=markdown`)).text()).toContain('| BMI | 22.9（正常） |');
  });

  it('every parameter is required and range-checked, with a 400 naming it', async () => {
    for (const name of ['height', 'weight', 'age', 'gender']) {
      const { status, body } = await getJson(svc(), ok.replace(new RegExp(`${name}=[^&]+&?`), ''));
      expect(status, name).toBe(400);
      expect(body.message).toContain(`"${name}"`);
    }
    for (const [name, bad] of [
      ['height', '49'],
      ['height', '251'],
      ['height', '175,5'],
      ['height', '1.75m'],
      ['weight', '9'],
      ['age', '30.5'],
      ['weight', '301'],
      ['age', '1'],
      ['age', '121'],
      ['gender', 'other'],
      ['gender', 'Male'],
      ['activity', 'lazy'],
    ] as const) {
      const url = name === 'activity' ? `${ok}&activity=${bad}` : ok.replace(new RegExp(`${name}=[^&]+`), `${name}=${bad}`);
      const { status, body } = await getJson(svc(), url);
      expect(status, `${name}=${bad}`).toBe(400);
      expect(body.message).toContain(`"${name}"`);
    }
  });

  it('takes height and weight with decimals, as 60s does', async () => {
    const { status, body } = await getJson<{ basic_info: { height_cm: number; weight_kg: number } }>(svc(), ok.replace(/height=[^&]+/, 'height=172.5').replace(/weight=[^&]+/, 'weight=63.4'));
    expect(status).toBe(200);
    expect(body.data.basic_info).toMatchObject({ height_cm: 172.5, weight_kg: 63.4 });
  });

  it('odd inputs never answer 500', async () => {
    await expectNoServerErrors(svc(), ok, ['height', 'weight', 'age', 'gender', 'activity']);
  });
});
